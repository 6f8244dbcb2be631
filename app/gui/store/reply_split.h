#pragma once
// A thinking model's reply split into reasoning and answer (app/text/reasoning_split.h), with the Qt
// strings the store, the journal and the chat models hold. Only the conversion lives here.
#include <QString>

namespace folio::app {

struct ReasoningSplit {
    QString reasoning;         // without the tags and the newlines around it
    QString answer;
    bool hasReasoning = false; // a think block was opened (it may be empty: thinking switched off)
    bool thinking = false;     // the block is still open: no </think> yet
};

// folio::text::split_reasoning: `complete` false holds back a tag still arriving.
ReasoningSplit splitReasoning(const QString& raw, bool complete = false);
// folio::text::join_reasoning: the raw text a split came from.
QString joinReasoning(const QString& reasoning, bool hasReasoning, const QString& answer);
// folio::text::thought_for: "Thought for 12 s".
QString thoughtFor(qint64 ms);

}  // namespace folio::app
