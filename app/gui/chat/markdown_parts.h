#pragma once
// Splits a reply's Markdown into typed parts that QML renders with one small component each (prose,
// heading, code block, quote), as NeoChat does for messages. Also makes the text safe to hand to a
// Text item: images are turned into plain links, so no remote image is ever fetched.
#include <QList>
#include <QString>

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

// `![alt](url)`, `![alt][ref]` and HTML <img> become links or text: nothing in the result makes a
// Text item load an image.
QString neutralizeImages(const QString& markdown);

}  // namespace folio::app
