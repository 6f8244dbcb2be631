#pragma once
// Splits a reply's Markdown into typed parts that the views render with one small component each
// (prose, heading, code block, quote), as NeoChat does for messages. Also makes the text safe to hand
// to a Qt Text item: images are turned into plain links, so no remote image is ever fetched.
//
// Plain C++ on UTF-8 (no Qt): the store, the chat models and the fuzz build share it. Markdown's
// syntax is ASCII, so the splitter works on bytes and never cuts a multi-byte character; whitespace
// means ASCII whitespace.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace folio::text {

struct MarkdownPart {
    enum class Kind { Prose, Heading, Code, Quote };
    Kind kind = Kind::Prose;
    std::string text;      // Prose/Quote: Markdown for a Text item; Heading: plain text; Code: verbatim
    std::string language;  // Code: the fence's info string ("cpp", "python", ...), may be empty
    int level = 0;         // Heading: 1..6
    bool open = false;     // Code: the closing fence has not arrived yet (still streaming)
    bool operator==(const MarkdownPart&) const = default;
};

const char* kind_name(MarkdownPart::Kind k);  // "prose", "heading", "code", "quote"

std::vector<MarkdownPart> split_markdown(std::string_view markdown);

// The splitter between two lines: the lines of the part still open. Parts it closes go to `out`
// and never change with later lines.
struct MarkdownSplitState {
    struct Fence {
        char ch = 0;
        size_t length = 0;
        std::string info;
    };
    std::vector<std::string> prose, quote, code;
    Fence fence;
    bool in_code = false;

    void line(std::string_view line, std::vector<MarkdownPart>& out);  // one line, without its '\n'
    void finish(std::vector<MarkdownPart>& out) &&;  // the open part, closed as it stands
};

// A reply that grows as it streams, split as it grows: each update() parses only the lines that
// arrived since the last one (and the line still being written), so a long reply costs the same per
// update at its end as at its start. The result always equals split_markdown(text).
class MarkdownStream {
public:
    // `text` usually extends the previous call's text; any other text starts over. The parts stay
    // valid until the next update().
    const std::vector<MarkdownPart>& update(std::string_view text);
    // Parts that later text cannot change (the first closed_parts() of update()'s result).
    size_t closed_parts() const { return closed_; }
    // The last update() was not a continuation and started over.
    bool restarted() const { return restarted_; }

private:
    MarkdownSplitState state_;        // after the complete lines read so far
    std::string read_;                // those lines (the text up to and including its last '\n')
    std::vector<MarkdownPart> parts_; // the closed parts, then those of the open part and the last line
    size_t closed_ = 0;
    bool restarted_ = false;
};

// `![alt](url)`, `![alt][ref]` and HTML <img> become links or text, and any "![" left (or made by
// those replacements) becomes "!\[": nothing in the result makes a Text item load an image.
std::string neutralize_images(std::string_view markdown);

}  // namespace folio::text
