#pragma once
// Plain records of the chat history as the store reads and writes them (GUI thread only).
#include <QJsonObject>
#include <QString>
#include <QtGlobal>

#include "engine/runtime/core_request.h"

namespace folio::app {

// Per-conversation (and per-reply, as used) sampling settings. seed < 0: a new random seed per reply.
struct SamplingSettings {
    double temperature = 0.7;
    double topP = 0.9;
    int topK = 40;
    double minP = 0.05;
    double repetitionPenalty = 1.1;
    int maxTokens = 512;
    qint64 seed = -1;

    QJsonObject toJson() const;
    static SamplingSettings fromJson(const QJsonObject& o);  // missing fields keep their defaults
    bool operator==(const SamplingSettings&) const = default;
};

enum class MessageStatus { Complete, Streaming, Interrupted, Error };
QString statusName(MessageStatus s);             // "complete", "streaming", "interrupted", "error"
MessageStatus statusFromName(const QString& s);  // unknown names read as Complete

struct ConversationRecord {
    qint64 id = 0;
    QString title;
    qint64 createdAt = 0;  // ms since the epoch
    qint64 updatedAt = 0;
    QString systemPrompt;
    SamplingSettings sampling;
    QString preset;
    qint64 activeLeafId = 0;  // 0: no message yet
    bool thinking = true;  // the chat's thinking switch: passed to the template as enable_thinking
    int drafts = 1;        // replies asked for per turn (1..kMaxDrafts), all from one engine request
};

// The most drafts a chat may ask for per reply.
constexpr int kMaxDrafts = 4;

// What the engine reported for a finished (or interrupted) reply: its RequestTimings as they came,
// and the finish reason by the name the store keeps. The messages table holds the prompt, cached and
// generated tokens, time to first token and the prefill and decode rates; queue time and
// preemptions are not stored (they read back as 0).
struct ReplyStats {
    folio::RequestTimings timings;
    QString finishReason;  // engine names: "stop", "length", "cancelled", ... ; empty while streaming
};

struct MessageRecord {
    qint64 id = 0;
    qint64 conversationId = 0;
    qint64 parentId = 0;  // 0: first message of a branch root
    QString role{};       // "user" or "assistant"
    QString content{};    // assistant: the answer, without the reasoning before it
    QString reasoning{};  // assistant: a thinking model's reasoning (its <think> block), kept apart
    qint64 reasoningMs = 0;  // how long it thought: first reasoning token to </think>
    QString model{};      // assistant: the model that wrote it
    SamplingSettings sampling{};
    ReplyStats stats{};
    MessageStatus status = MessageStatus::Complete;
    qint64 createdAt = 0;
    QString error{};        // status Error: what went wrong, for the user
    bool imported = false;  // read from an exported file: not written (nor timed) by this app
    // A reply with drafts: how many (1: none, a plain reply) and which one is the reply (its text is
    // `content`/`reasoning`; the history sends it). The drafts themselves: ChatStore::drafts.
    int draftCount = 1;
    int chosenDraft = 0;
};

// One draft of a reply asked for as n samples (message_drafts).
struct DraftRecord {
    int index = 0;
    QString content{};
    QString reasoning{};
    qint64 reasoningMs = 0;
    int generatedTokens = 0;
    QString finishReason{};  // empty while streaming
};

struct SearchHit {
    qint64 conversationId = 0;
    qint64 messageId = 0;
    QString conversationTitle;
    QString role;
    QString snippet;  // matched terms between \x02 and \x03
};

}  // namespace folio::app
