#include "app/gui/chat/reasoning_split.h"

namespace folio::app {
namespace {

const QString kOpen = QStringLiteral("<think>");
const QString kClose = QStringLiteral("</think>");

// How many characters at the end of `s` are a proper prefix of `tag` (a tag still arriving).
qsizetype partialTagAtEnd(const QString& s, const QString& tag) {
    for (qsizetype n = qMin(s.size(), tag.size() - 1); n > 0; --n) {
        if (QStringView(s).right(n) == QStringView(tag).left(n)) return n;
    }
    return 0;
}

QString trimNewlines(QStringView s) {
    qsizetype b = 0, e = s.size();
    while (b < e && (s[b] == '\n' || s[b] == '\r')) ++b;
    while (e > b && (s[e - 1] == '\n' || s[e - 1] == '\r')) --e;
    return s.mid(b, e - b).toString();
}

QString dropLeadingNewlines(QStringView s) {
    qsizetype b = 0;
    while (b < s.size() && (s[b] == '\n' || s[b] == '\r')) ++b;
    return s.mid(b).toString();
}

}  // namespace

ReasoningSplit splitReasoning(const QString& raw, bool complete) {
    ReasoningSplit out;
    qsizetype lead = 0;
    while (lead < raw.size() && raw[lead].isSpace()) ++lead;
    const QStringView rest = QStringView(raw).mid(lead);
    if (rest.startsWith(kOpen)) {
        out.hasReasoning = true;
        const QStringView body = rest.mid(kOpen.size());
        const qsizetype close = body.indexOf(kClose);
        if (close < 0) {
            out.thinking = true;
            const QString b = body.toString();
            out.reasoning = trimNewlines(QStringView(b).left(b.size() - (complete ? 0 : partialTagAtEnd(b, kClose))));
        } else {
            out.reasoning = trimNewlines(body.left(close));
            out.answer = dropLeadingNewlines(body.mid(close + kClose.size()));
        }
        return out;
    }
    if (!complete && !rest.isEmpty() && kOpen.startsWith(rest)) return out;  // "<thi": not known yet
    const qsizetype close = raw.indexOf(kClose);
    if (close >= 0) {  // the template opened the block in the prompt
        out.hasReasoning = true;
        out.reasoning = trimNewlines(QStringView(raw).left(close));
        out.answer = dropLeadingNewlines(QStringView(raw).mid(close + kClose.size()));
        return out;
    }
    out.answer = raw;
    return out;
}

QString joinReasoning(const QString& reasoning, bool hasReasoning, const QString& answer) {
    if (!hasReasoning && reasoning.isEmpty()) return answer;
    return kOpen + '\n' + reasoning + '\n' + kClose + QStringLiteral("\n\n") + answer;
}

QString thoughtFor(qint64 ms) {
    if (ms <= 0) return QStringLiteral("Thoughts");
    if (ms < 1000) return QStringLiteral("Thought for less than a second");
    const qint64 s = (ms + 500) / 1000;
    if (s < 60) return QStringLiteral("Thought for %1 s").arg(s);
    return QStringLiteral("Thought for %1 min %2 s").arg(s / 60).arg(s % 60);
}

}  // namespace folio::app
