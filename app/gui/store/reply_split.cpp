#include "app/gui/store/reply_split.h"

#include "app/text/reasoning_split.h"

namespace folio::app {

ReasoningSplit splitReasoning(const QString& raw, bool complete) {
    const text::ReasoningSplit s = text::split_reasoning(raw.toStdString(), complete);
    return {QString::fromStdString(s.reasoning), QString::fromStdString(s.answer), s.has_reasoning, s.thinking};
}

QString joinReasoning(const QString& reasoning, bool hasReasoning, const QString& answer) {
    return QString::fromStdString(text::join_reasoning(reasoning.toStdString(), hasReasoning, answer.toStdString()));
}

QString thoughtFor(qint64 ms) { return QString::fromStdString(text::thought_for(ms)); }

}  // namespace folio::app
