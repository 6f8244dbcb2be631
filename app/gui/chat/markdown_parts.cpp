#include "app/gui/chat/markdown_parts.h"

#include <QRegularExpression>
#include <QStringList>

namespace folio::app {
namespace {

using Fence = MarkdownSplitState::Fence;

// A fence opener: up to 3 spaces, then ``` or ~~~ (3 or more), then the info string.
bool openingFence(const QString& line, Fence* f) {
    static const QRegularExpression re(QStringLiteral("^ {0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$"));
    const auto m = re.match(line);
    if (!m.hasMatch()) return false;
    f->ch = m.captured(1).front();
    f->length = int(m.capturedLength(1));
    f->info = m.captured(2);
    return true;
}

bool closingFence(const QString& line, const Fence& f) {
    const QString t = line.trimmed();
    if (t.size() < f.length) return false;
    for (QChar c : t) {
        if (c != f.ch) return false;
    }
    return line.indexOf(t) <= 3;
}

bool headingLine(const QString& line, int* level, QString* text) {
    static const QRegularExpression re(QStringLiteral("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$"));
    const auto m = re.match(line);
    if (!m.hasMatch()) return false;
    *level = int(m.capturedLength(1));
    *text = m.captured(2);
    return true;
}

bool quoteLine(const QString& line, QString* inner) {
    static const QRegularExpression re(QStringLiteral("^ {0,3}> ?(.*)$"));
    const auto m = re.match(line);
    if (!m.hasMatch()) return false;
    *inner = m.captured(1);
    return true;
}

void pushText(QList<MarkdownPart>& parts, MarkdownPart::Kind kind, QStringList& lines) {
    while (!lines.isEmpty() && lines.front().trimmed().isEmpty()) lines.removeFirst();
    while (!lines.isEmpty() && lines.back().trimmed().isEmpty()) lines.removeLast();
    if (!lines.isEmpty()) {
        MarkdownPart p;
        p.kind = kind;
        p.text = neutralizeImages(lines.join('\n'));
        parts << p;
    }
    lines.clear();
}

}  // namespace

QString kindName(MarkdownPart::Kind k) {
    switch (k) {
    case MarkdownPart::Kind::Prose: return QStringLiteral("prose");
    case MarkdownPart::Kind::Heading: return QStringLiteral("heading");
    case MarkdownPart::Kind::Code: return QStringLiteral("code");
    case MarkdownPart::Kind::Quote: return QStringLiteral("quote");
    }
    return QStringLiteral("prose");
}

QString neutralizeImages(const QString& markdown) {
    static const QRegularExpression inlineImage(QStringLiteral("!\\[([^\\]]*)\\]\\(\\s*<?([^)\\s>]*)>?[^)]*\\)"));
    static const QRegularExpression refImage(QStringLiteral("!\\[([^\\]]*)\\]\\[([^\\]]*)\\]"));
    static const QRegularExpression htmlImage(QStringLiteral("<img\\b[^>]*>"), QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression imgSrc(QStringLiteral("src\\s*=\\s*[\"']?([^\"'\\s>]+)"), QRegularExpression::CaseInsensitiveOption);
    QString s = markdown;
    s.replace(inlineImage, QStringLiteral("[image: \\1](\\2)"));
    s.replace(refImage, QStringLiteral("[image: \\1][\\2]"));
    // HTML images: keep the address as a link so the reader can still open it deliberately.
    QString out;
    qsizetype last = 0;
    for (auto it = htmlImage.globalMatch(s); it.hasNext();) {
        const auto m = it.next();
        out += s.mid(last, m.capturedStart() - last);
        const auto src = imgSrc.match(m.captured(0));
        out += src.hasMatch() ? QStringLiteral("[image](%1)").arg(src.captured(1)) : QStringLiteral("[image]");
        last = m.capturedEnd();
    }
    out += s.mid(last);
    return out;
}

void MarkdownSplitState::line(const QString& raw) {
    const QString line = raw.endsWith('\r') ? raw.chopped(1) : raw;
    if (inCode) {
        if (closingFence(line, fence)) {
            parts << MarkdownPart{MarkdownPart::Kind::Code, code.join('\n'), fence.info, 0, false};
            code.clear();
            inCode = false;
        } else {
            code << line;
        }
        return;
    }
    Fence f;
    int level = 0;
    QString text;
    if (openingFence(line, &f)) {
        pushText(parts, MarkdownPart::Kind::Prose, prose);
        pushText(parts, MarkdownPart::Kind::Quote, quote);
        fence = f;
        inCode = true;
    } else if (quoteLine(line, &text)) {
        pushText(parts, MarkdownPart::Kind::Prose, prose);
        quote << text;
    } else if (headingLine(line, &level, &text)) {
        pushText(parts, MarkdownPart::Kind::Prose, prose);
        pushText(parts, MarkdownPart::Kind::Quote, quote);
        parts << MarkdownPart{MarkdownPart::Kind::Heading, neutralizeImages(text), {}, level, false};
    } else {
        // A blank line ends a quote; a non-blank line right after a quote continues it (lazy
        // continuation) only if the quote has not ended.
        if (!quote.isEmpty() && !line.trimmed().isEmpty()) {
            quote << line;
            return;
        }
        pushText(parts, MarkdownPart::Kind::Quote, quote);
        prose << line;
    }
}

QList<MarkdownPart> MarkdownSplitState::finish() && {
    if (inCode) parts << MarkdownPart{MarkdownPart::Kind::Code, code.join('\n'), fence.info, 0, true};
    pushText(parts, MarkdownPart::Kind::Prose, prose);
    pushText(parts, MarkdownPart::Kind::Quote, quote);
    return std::move(parts);
}

QList<MarkdownPart> MarkdownStream::update(const QString& text) {
    restarted_ = text.size() < consumed_ || QStringView(text).left(consumed_) != QStringView(text_).left(consumed_);
    if (restarted_) {  // not a continuation: start over
        state_ = {};
        consumed_ = 0;
    }
    text_ = text;
    // Complete lines go into the kept state; the line still being written is read on a copy.
    qsizetype nl;
    while ((nl = text.indexOf('\n', consumed_)) >= 0) {
        state_.line(text.mid(consumed_, nl - consumed_));
        consumed_ = nl + 1;
    }
    MarkdownSplitState tail = state_;
    tail.line(text.mid(consumed_));
    return std::move(tail).finish();
}

QList<MarkdownPart> splitMarkdown(const QString& markdown) { return MarkdownStream().update(markdown); }

}  // namespace folio::app
