// Splitting replies into typed parts, and keeping remote images from ever being loaded.
#include <QtTest>

#include "app/gui/chat/markdown_parts.h"

using namespace folio::app;
using Kind = MarkdownPart::Kind;

class MarkdownTest : public QObject {
    Q_OBJECT
private slots:
    void proseCodeProse() {
        const auto parts = splitMarkdown("Here is code:\n\n```cpp\nint main() {\n\n  return 0;\n}\n```\nDone *now*.");
        QCOMPARE(parts.size(), 3);
        QCOMPARE(parts[0], (MarkdownPart{Kind::Prose, "Here is code:", {}, 0, false}));
        QCOMPARE(parts[1], (MarkdownPart{Kind::Code, "int main() {\n\n  return 0;\n}", "cpp", 0, false}));
        QCOMPARE(parts[2], (MarkdownPart{Kind::Prose, "Done *now*.", {}, 0, false}));
    }
    void unclosedFenceIsOpenCode() {
        const auto parts = splitMarkdown("Streaming:\n~~~python\nprint(1)\n```\nstill code");
        QCOMPARE(parts.size(), 2);
        QCOMPARE(parts[1].kind, Kind::Code);
        QCOMPARE(parts[1].language, QString("python"));
        QVERIFY(parts[1].open);
        QCOMPARE(parts[1].text, QString("print(1)\n```\nstill code"));  // a ``` does not close ~~~
    }
    void longerFenceNeedsLongerClose() {
        const auto parts = splitMarkdown("````\n```\ninner\n```\n````");
        QCOMPARE(parts.size(), 1);
        QCOMPARE(parts[0].text, QString("```\ninner\n```"));
        QVERIFY(!parts[0].open);
    }
    void headingsAndQuotes() {
        const auto parts = splitMarkdown("# Title #\nintro\n> quoted **bold**\nlazy line\n\n## Sub\n- a\n- b");
        QCOMPARE(parts.size(), 5);
        QCOMPARE(parts[0], (MarkdownPart{Kind::Heading, "Title", {}, 1, false}));
        QCOMPARE(parts[1].text, QString("intro"));
        QCOMPARE(parts[2], (MarkdownPart{Kind::Quote, "quoted **bold**\nlazy line", {}, 0, false}));
        QCOMPARE(parts[3], (MarkdownPart{Kind::Heading, "Sub", {}, 2, false}));
        QCOMPARE(parts[4], (MarkdownPart{Kind::Prose, "- a\n- b", {}, 0, false}));
    }
    void hashInCodeIsNotHeading() {
        const auto parts = splitMarkdown("```sh\n# comment\n> not a quote\n```");
        QCOMPARE(parts.size(), 1);
        QCOMPARE(parts[0].text, QString("# comment\n> not a quote"));
    }
    void imagesBecomeLinks() {
        const auto parts = splitMarkdown("See ![a cat](https://example.com/cat.png \"t\") and ![x][ref]\n"
                                         "<IMG SRC='http://evil.example/p.gif' width=1> end");
        QCOMPARE(parts.size(), 1);
        const QString t = parts[0].text;
        QVERIFY2(!t.contains("!["), qPrintable(t));
        QVERIFY2(!t.contains("<img", Qt::CaseInsensitive), qPrintable(t));
        QVERIFY(t.contains("[image: a cat](https://example.com/cat.png)"));
        QVERIFY(t.contains("[image: x][ref]"));
        QVERIFY(t.contains("[image](http://evil.example/p.gif)"));
    }
    void codeKeepsImagesVerbatim() {
        const auto parts = splitMarkdown("```md\n![x](http://a/b.png)\n```");
        QCOMPARE(parts[0].text, QString("![x](http://a/b.png)"));  // shown as code, never rendered
    }
    void emptyAndBlank() {
        QVERIFY(splitMarkdown("").isEmpty());
        QVERIFY(splitMarkdown("\n\n  \n").isEmpty());
    }
};

QTEST_GUILESS_MAIN(MarkdownTest)
#include "tst_markdown.moc"
