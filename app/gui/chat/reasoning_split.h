#pragma once
// A thinking model's reply as it streams: "<think>reasoning</think>answer" (Qwen3 writes the opening
// tag itself; DeepSeek-R1 distills get it from their template's generation prompt, so their reply
// starts inside the block). Split the way vLLM's reasoning parsers split it: the reasoning apart,
// the answer after </think> with its leading newlines dropped (as the Qwen3 template drops them).
#include <QString>

namespace folio::app {

struct ReasoningSplit {
    QString reasoning;         // without the tags and the newlines around it
    QString answer;
    bool hasReasoning = false; // a think block was opened (it may be empty: thinking switched off)
    bool thinking = false;     // the block is still open: no </think> yet
};

// `raw`: the reply's text so far. A reply that starts with "<think>" thinks until "</think>"; one
// with a "</think>" but no opening tag thought from its first token (its template opened the block);
// anything else is all answer. While the reply streams (`complete` false), text that could still
// become "<think>" (it is "<th"), or a partial "</think>" at the end of the reasoning, is held back;
// a complete reply keeps every character.
ReasoningSplit splitReasoning(const QString& raw, bool complete = false);

// The raw text a split came from, in the form the Qwen3 template writes a turn: a stored reply that is
// continued goes on from here (its reasoning stays closed).
QString joinReasoning(const QString& reasoning, bool hasReasoning, const QString& answer);

// "Thought for 12 s", "Thought for 1 min 5 s", "Thought for less than a second"; "Thoughts" when the
// time is unknown (0).
QString thoughtFor(qint64 ms);

}  // namespace folio::app
