#pragma once
// Splits a reply's Markdown into typed parts that QML renders with one small component each (prose,
// heading, code block, quote), as NeoChat does for messages. Also makes the text safe to hand to a
// Text item: images are turned into plain links, so no remote image is ever fetched.
#include <QList>
#include <QString>
#include <QStringList>

namespace folio::app {

struct MarkdownPart {
    enum class Kind { Prose, Heading, Code, Quote };
    Kind kind = Kind::Prose;
    QString text;      // Prose/Quote: Markdown for a Text item; Heading: plain text; Code: verbatim
    QString language;  // Code: the fence's info string ("cpp", "python", ...), may be empty
    int level = 0;     // Heading: 1..6
    bool open = false; // Code: the closing fence has not arrived yet (still streaming)
    bool operator==(const MarkdownPart&) const = default;
};

QString kindName(MarkdownPart::Kind k);  // "prose", "heading", "code", "quote"

QList<MarkdownPart> splitMarkdown(const QString& markdown);

// The splitter between two lines: the parts closed so far (never changed by later lines) and the
// lines of the part still open.
struct MarkdownSplitState {
    struct Fence {
        QChar ch;
        int length = 0;
        QString info;
    };
    QList<MarkdownPart> parts;
    QStringList prose, quote, code;
    Fence fence;
    bool inCode = false;

    void line(const QString& line);      // one line, without its '\n'
    QList<MarkdownPart> finish() &&;     // the parts, the open one closed as it stands
};

// A reply that grows as it streams, split as it grows: each update() parses only the lines that
// arrived since the last one (and the line still being written), so a long reply costs the same per
// update at its end as at its start. The result always equals splitMarkdown(text).
class MarkdownStream {
public:
    // `text` usually extends the previous call's text; any other text starts over.
    QList<MarkdownPart> update(const QString& text);
    // Parts that later text cannot change (the first closedParts() of update()'s result).
    int closedParts() const { return int(state_.parts.size()); }
    // The last update() was not a continuation and started over.
    bool restarted() const { return restarted_; }

private:
    MarkdownSplitState state_;  // after the complete lines read so far
    QString text_;
    qsizetype consumed_ = 0;    // characters of text_ in state_ (up to and including the last '\n')
    bool restarted_ = false;
};

// `![alt](url)`, `![alt][ref]` and HTML <img> become links or text: nothing in the result makes a
// Text item load an image.
QString neutralizeImages(const QString& markdown);

}  // namespace folio::app
