// Splitting replies into typed parts (also as they stream: the incremental splitter equals the whole
// one at every cut), and keeping remote images from ever being loaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>

#include "app/text/markdown_parts.h"

namespace folio::text {

void PrintTo(const MarkdownPart& p, std::ostream* os) {
    *os << "{" << kind_name(p.kind) << ", \"" << p.text << "\", \"" << p.language << "\", " << p.level << ", "
        << (p.open ? "open" : "closed") << "}";
}

namespace {

using Kind = MarkdownPart::Kind;

TEST(MarkdownParts, ProseCodeProse) {
    const auto parts = split_markdown("Here is code:\n\n```cpp\nint main() {\n\n  return 0;\n}\n```\nDone *now*.");
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0], (MarkdownPart{Kind::Prose, "Here is code:", {}, 0, false}));
    EXPECT_EQ(parts[1], (MarkdownPart{Kind::Code, "int main() {\n\n  return 0;\n}", "cpp", 0, false}));
    EXPECT_EQ(parts[2], (MarkdownPart{Kind::Prose, "Done *now*.", {}, 0, false}));
}

TEST(MarkdownParts, UnclosedFenceIsOpenCode) {
    const auto parts = split_markdown("Streaming:\n~~~python\nprint(1)\n```\nstill code");
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[1].kind, Kind::Code);
    EXPECT_EQ(parts[1].language, "python");
    EXPECT_TRUE(parts[1].open);
    EXPECT_EQ(parts[1].text, "print(1)\n```\nstill code");  // a ``` does not close ~~~
}

TEST(MarkdownParts, LongerFenceNeedsLongerClose) {
    const auto parts = split_markdown("````\n```\ninner\n```\n````");
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].text, "```\ninner\n```");
    EXPECT_FALSE(parts[0].open);
}

TEST(MarkdownParts, FenceMarkers) {
    // Indented by 4 spaces, or with a backtick after a ``` run, a line opens no fence.
    EXPECT_EQ(split_markdown("    ```\ncode?")[0].kind, Kind::Prose);
    EXPECT_EQ(split_markdown("``` a`b\nx").size(), 1u);
    EXPECT_EQ(split_markdown("``` a`b\nx")[0].kind, Kind::Prose);
    // The info string is the first word; a closing fence may be indented up to 3 spaces.
    const auto parts = split_markdown("   ~~~~ c++ extra words\nint x;\n   ~~~~~  \nafter");
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0], (MarkdownPart{Kind::Code, "int x;", "c++", 0, false}));
    EXPECT_EQ(parts[1].text, "after");
    EXPECT_TRUE(split_markdown("```\nx\n    ```")[0].open);  // 4 spaces: still code
}

TEST(MarkdownParts, HeadingsAndQuotes) {
    const auto parts = split_markdown("# Title #\nintro\n> quoted **bold**\nlazy line\n\n## Sub\n- a\n- b");
    ASSERT_EQ(parts.size(), 5u);
    EXPECT_EQ(parts[0], (MarkdownPart{Kind::Heading, "Title", {}, 1, false}));
    EXPECT_EQ(parts[1].text, "intro");
    EXPECT_EQ(parts[2], (MarkdownPart{Kind::Quote, "quoted **bold**\nlazy line", {}, 0, false}));
    EXPECT_EQ(parts[3], (MarkdownPart{Kind::Heading, "Sub", {}, 2, false}));
    EXPECT_EQ(parts[4], (MarkdownPart{Kind::Prose, "- a\n- b", {}, 0, false}));
}

TEST(MarkdownParts, HeadingMarkers) {
    EXPECT_EQ(split_markdown("###### Six")[0], (MarkdownPart{Kind::Heading, "Six", {}, 6, false}));
    EXPECT_EQ(split_markdown("####### Seven")[0].kind, Kind::Prose);
    EXPECT_EQ(split_markdown("#NoSpace")[0].kind, Kind::Prose);
    EXPECT_EQ(split_markdown("    # indented")[0].kind, Kind::Prose);
    EXPECT_EQ(split_markdown("# #hash tag")[0].text, "#hash tag");
}

TEST(MarkdownParts, HashInCodeIsNotHeading) {
    const auto parts = split_markdown("```sh\n# comment\n> not a quote\n```");
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].text, "# comment\n> not a quote");
}

TEST(MarkdownParts, ImagesBecomeLinks) {
    const auto parts = split_markdown("See ![a cat](https://example.com/cat.png \"t\") and ![x][ref]\n"
                                      "<IMG SRC='http://evil.example/p.gif' width=1> end");
    ASSERT_EQ(parts.size(), 1u);
    const std::string& t = parts[0].text;
    EXPECT_EQ(t.find("!["), std::string::npos) << t;
    EXPECT_EQ(t.find("<IMG"), std::string::npos) << t;
    EXPECT_NE(t.find("[image: a cat](https://example.com/cat.png)"), std::string::npos) << t;
    EXPECT_NE(t.find("[image: x][ref]"), std::string::npos) << t;
    EXPECT_NE(t.find("[image](http://evil.example/p.gif)"), std::string::npos) << t;
}

TEST(MarkdownParts, ImageForms) {
    EXPECT_EQ(neutralize_images("![a]( <http://x/y.png> \"t\")!"), "[image: a](http://x/y.png)!");
    EXPECT_EQ(neutralize_images("![a](http://x/y.png"), "!\\[a](http://x/y.png");  // no ')' yet: escaped
    EXPECT_EQ(neutralize_images("<img data-x=1>"), "[image]");
    EXPECT_EQ(neutralize_images("<img srcset=a.png src=\"b.png\">"), "[image](b.png)");
    EXPECT_EQ(neutralize_images("<imgur> <img/src=c.png>"), "<imgur> [image](c.png)");
    EXPECT_EQ(neutralize_images("a ![b] [c] d"), "a !\\[b] [c] d");  // a shortcut reference, were [b] defined
}

// Markdown that is still an image after the replacements above: a '!' before the replacement, an
// image inside an alt text or an address, a shortcut reference. None may reach a Text item.
TEST(MarkdownParts, NoImageSurvives) {
    EXPECT_EQ(neutralize_images("!![a](http://x/p.png)"), "!\\[image: a](http://x/p.png)");
    EXPECT_EQ(neutralize_images("![![b](http://v/q.png)](u)"), "[image: !\\[b](http://v/q.png)](u)");
    EXPECT_EQ(neutralize_images("<img src=a)![y](http://b/r.png>"), "[image](a)!\\[y](http://b/r.png)");
    EXPECT_EQ(neutralize_images("!<img src=http://x/p.png>"), "!\\[image](http://x/p.png)");
    EXPECT_EQ(neutralize_images("![logo]\n\n[logo]: http://x/p.png"), "!\\[logo]\n\n[logo]: http://x/p.png");
    EXPECT_EQ(neutralize_images("<img src=<img/src=http://x/p.png> x>"), "[image](%3Cimg/src=http://x/p.png) x>");
    for (const char* text : {"!![a](u)", "![![b](v)](u)", "<img src=a)![y](b>", "![x", "!![a][r]", "a ![b] [c] d"})
        EXPECT_EQ(neutralize_images(text).find("!["), std::string::npos) << text;
}

TEST(MarkdownParts, CodeKeepsImagesVerbatim) {
    const auto parts = split_markdown("```md\n![x](http://a/b.png)\n```");
    EXPECT_EQ(parts[0].text, "![x](http://a/b.png)");  // shown as code, never rendered
}

TEST(MarkdownParts, EmptyAndBlank) {
    EXPECT_TRUE(split_markdown("").empty());
    EXPECT_TRUE(split_markdown("\n\n  \n").empty());
}

TEST(MarkdownParts, Utf8PassesThrough) {
    const auto parts = split_markdown("# Überschrift ✓\nGrüße, 世界 🙂\n```\nλx → x\n```");
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].text, "Überschrift ✓");
    EXPECT_EQ(parts[1].text, "Grüße, 世界 🙂");
    EXPECT_EQ(parts[2].text, "λx → x");
}

// Streaming: fed a reply byte by byte, or in random chunks, the stream gives what the whole splitter
// gives for the text so far, and parts it called closed never change.
TEST(MarkdownParts, StreamEqualsWholeSplitAtEveryCut) {
    const std::string reply =
        "# Plan\r\nFirst *prose* line\nsecond line\n\n> a quote\nlazy line\n\n## Code\n"
        "```cpp\nint main() {\n\n  return 0;\n}\n```\nBetween ![img](http://x/y.png).\n"
        "~~~python\nprint('```')\n~~~\n````\n```\ninner\n```\n````\n### Tail ✓\n- a\n- b\n```sh\nunclosed";
    for (size_t step : {1, 0}) {  // 0: random chunks
        MarkdownStream stream;
        std::vector<MarkdownPart> closed;
        std::mt19937 rng(7);
        for (size_t n = 0; n <= reply.size();) {
            const std::string prefix = reply.substr(0, n);
            const std::vector<MarkdownPart> got = stream.update(prefix);
            ASSERT_EQ(got, split_markdown(prefix)) << "at " << n;
            EXPECT_FALSE(stream.restarted());
            ASSERT_GE(stream.closed_parts(), closed.size());
            EXPECT_TRUE(std::equal(closed.begin(), closed.end(), got.begin())) << "at " << n;
            closed.assign(got.begin(), got.begin() + std::ptrdiff_t(stream.closed_parts()));
            if (n == reply.size()) break;
            n = std::min(reply.size(), n + (step ? step : 1 + rng() % 12));
        }
    }
}

TEST(MarkdownParts, StreamStartsOverOnOtherText) {
    MarkdownStream stream;
    stream.update("Intro\n```js\nlet a;\n");
    EXPECT_EQ(stream.closed_parts(), 1u);
    EXPECT_EQ(stream.update("Something else"), split_markdown("Something else"));
    EXPECT_TRUE(stream.restarted());
    EXPECT_EQ(stream.update("Something else entirely"), split_markdown("Something else entirely"));
    EXPECT_FALSE(stream.restarted());
}

}  // namespace
}  // namespace folio::text
