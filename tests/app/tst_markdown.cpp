// Splitting replies into typed parts (also as they stream: the incremental splitter equals the whole
// one at every cut), a thinking model's reasoning from its answer, and keeping remote images from
// ever being loaded.
#include <QRandomGenerator>
#include <QtTest>

#include "app/gui/chat/markdown_parts.h"
#include "app/gui/chat/reasoning_split.h"

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

    // Streaming: fed a reply character by character, or in random chunks, the stream gives what the
    // whole splitter gives for the text so far, and parts it called closed never change.
    void streamEqualsWholeSplitAtEveryCut() {
        const QString reply = QStringLiteral(
            "# Plan\r\nFirst *prose* line\nsecond line\n\n> a quote\nlazy line\n\n## Code\n"
            "```cpp\nint main() {\n\n  return 0;\n}\n```\nBetween ![img](http://x/y.png).\n"
            "~~~python\nprint('```')\n~~~\n````\n```\ninner\n```\n````\n### Tail\n- a\n- b\n```sh\nunclosed");
        for (int step : {1, 0}) {  // 0: random chunks
            MarkdownStream stream;
            QList<MarkdownPart> closed;
            QRandomGenerator rng(7);
            for (qsizetype n = 0; n <= reply.size();) {
                const QString prefix = reply.left(n);
                const QList<MarkdownPart> got = stream.update(prefix);
                QCOMPARE(got, splitMarkdown(prefix));
                QVERIFY(!stream.restarted());
                QVERIFY(stream.closedParts() >= closed.size());
                QCOMPARE(got.mid(0, closed.size()), closed);
                closed = got.mid(0, stream.closedParts());
                if (n == reply.size()) break;
                n = std::min(reply.size(), n + (step ? step : 1 + rng.bounded(12)));
            }
        }
    }
    void streamStartsOverOnOtherText() {
        MarkdownStream stream;
        stream.update("Intro\n```js\nlet a;\n");
        QCOMPARE(stream.closedParts(), 1);
        QCOMPARE(stream.update("Something else"), splitMarkdown("Something else"));
        QVERIFY(stream.restarted());
        QCOMPARE(stream.update("Something else entirely"), splitMarkdown("Something else entirely"));
        QVERIFY(!stream.restarted());
    }

    // A thinking reply arriving token by token: nothing shows while "<think>" could still be coming,
    // the reasoning grows without a partial "</think>", then the answer follows.
    void reasoningStreamsTokenByToken() {
        const QStringList tokens = {"<", "th", "ink", ">\n", "Two", " and two", ".\n</", "thi", "nk>", "\n\n", "4", "."};
        QString raw;
        QList<ReasoningSplit> seen;
        for (const QString& t : tokens) seen << splitReasoning(raw += t);
        QVERIFY(!seen[0].hasReasoning && seen[0].answer.isEmpty());  // "<"
        QVERIFY(!seen[2].hasReasoning && seen[2].answer.isEmpty());  // "<think"
        QVERIFY(seen[3].hasReasoning && seen[3].thinking);
        QCOMPARE(seen[5].reasoning, QString("Two and two"));
        QCOMPARE(seen[6].reasoning, QString("Two and two."));       // "….\n</" held back
        QCOMPARE(seen[7].reasoning, QString("Two and two."));
        QVERIFY(seen[7].thinking);
        QVERIFY(seen[8].hasReasoning && !seen[8].thinking);
        QCOMPARE(seen[8].answer, QString());
        QCOMPARE(seen[9].answer, QString());                       // newlines after </think> dropped
        QCOMPARE(seen[11].answer, QString("4."));
        QCOMPARE(seen[11].reasoning, QString("Two and two."));
    }
    void unterminatedAndNoReasoning() {
        const ReasoningSplit cut = splitReasoning("<think>\nStill going</thi");
        QVERIFY(cut.hasReasoning && cut.thinking);
        QCOMPARE(cut.reasoning, QString("Still going"));
        QCOMPARE(splitReasoning("<think>\nStill going</thi", /*complete=*/true).reasoning, QString("Still going</thi"));
        const ReasoningSplit plain = splitReasoning("Hello <b>there</b>, <think> is a tag.");
        QVERIFY(!plain.hasReasoning);
        QCOMPARE(plain.answer, QString("Hello <b>there</b>, <think> is a tag."));
        QCOMPARE(splitReasoning("<").answer, QString());                          // could still be <think>
        QCOMPARE(splitReasoning("<", /*complete=*/true).answer, QString("<"));    // it was not
        QCOMPARE(splitReasoning("<div>").answer, QString("<div>"));
        // Thinking switched off (Qwen3 closes an empty block in the prompt; the reply has no tags).
        QCOMPARE(splitReasoning("Just the answer.").answer, QString("Just the answer."));
        // DeepSeek-R1 distills: the template opened the block, the reply starts inside it.
        const ReasoningSplit r1 = splitReasoning("Let me see.\n</think>\n\nParis.");
        QVERIFY(r1.hasReasoning && !r1.thinking);
        QCOMPARE(r1.reasoning, QString("Let me see."));
        QCOMPARE(r1.answer, QString("Paris."));
    }
    void joinGivesBackTheSplit() {
        const QString raw = joinReasoning("A thought.", true, "An answer.");
        QCOMPARE(raw, QString("<think>\nA thought.\n</think>\n\nAn answer."));
        const ReasoningSplit s = splitReasoning(raw + " More.");
        QCOMPARE(s.reasoning, QString("A thought."));
        QCOMPARE(s.answer, QString("An answer. More."));
        QCOMPARE(joinReasoning({}, false, "Plain."), QString("Plain."));
        QCOMPARE(thoughtFor(12400), QString("Thought for 12 s"));
        QCOMPARE(thoughtFor(65000), QString("Thought for 1 min 5 s"));
        QCOMPARE(thoughtFor(300), QString("Thought for less than a second"));
    }
};

QTEST_GUILESS_MAIN(MarkdownTest)
#include "tst_markdown.moc"
