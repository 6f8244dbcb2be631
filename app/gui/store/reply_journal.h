#pragma once
// Saves replies while they stream: the text grows in memory and is written at most every
// `flushInterval` (250 ms by default, one transaction for all replies), so a killed process loses
// under half a second of text; the row says 'streaming' until finish() and reads as 'interrupted'
// after a crash. A thinking model's reply is kept as it came ("<think>…</think>answer") and written
// split: the answer as the message's content, the reasoning apart with how long it took.
#include <QHash>
#include <QObject>
#include <QTimer>

#include "app/gui/store/reply_split.h"
#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;

class ReplyJournal : public QObject {
    Q_OBJECT
public:
    explicit ReplyJournal(ChatStore* store, int flushIntervalMs = 250, QObject* parent = nullptr);
    ~ReplyJournal() override;  // flushes

    // Adds an empty assistant reply (status streaming) under `parentId`; returns its id. With
    // `drafts` > 1 the reply has that many drafts, each streamed apart (the draft-taking overloads);
    // the chosen one (draft 0 at first) is the message's text, every draft is saved as it grows.
    qint64 begin(MessageRecord reply, int drafts = 1);
    qint64 reopen(qint64 existingId);
    void append(qint64 messageId, const QString& delta) { append(messageId, -1, delta); }
    void append(qint64 messageId, int draft, const QString& delta);  // draft -1: the chosen one
    // The reply so far, split (the chosen draft, or `draft`); text() is its answer (what the
    // message's content will be).
    ReasoningSplit split(qint64 messageId, int draft = -1) const;
    QString text(qint64 messageId) const { return split(messageId).answer; }
    // How long the model thought (set once its </think> arrives; kept when a reply is continued).
    qint64 reasoningMs(qint64 messageId, int draft = -1) const;
    void setReasoningMs(qint64 messageId, qint64 ms) { setReasoningMs(messageId, -1, ms); }
    void setReasoningMs(qint64 messageId, int draft, qint64 ms);
    int draftCount(qint64 messageId) const { return int(open_.value(messageId).drafts.size()); }
    int chosenDraft(qint64 messageId) const { return open_.value(messageId).chosen; }
    // Which draft is the reply while it streams (saved with the next flush).
    void choose(qint64 messageId, int draft);
    // One draft of several ended (the others may go on): its own tokens and finish reason.
    void finishDraft(qint64 messageId, int draft, int generatedTokens, const QString& finishReason);
    // Final write with stats and status (Complete, Interrupted, Error with `error` saying why).
    void finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error = {});
    bool isOpen(qint64 messageId) const { return open_.contains(messageId); }

    // Writes every reply with unsaved text now.
    void flush();

signals:
    void flushed(int replies);  // for tests and the crash harness

private:
    struct Draft {
        QString raw;  // as the model wrote it
        qint64 reasoningMs = 0;
        int tokens = 0;
        QString finishReason{};
    };
    struct Open {
        QList<Draft> drafts;  // one for a plain reply
        int chosen = 0;
        bool dirty = false;
    };
    Draft* draftOf(qint64 messageId, int draft);
    void write(qint64 messageId, const Open& o, bool complete);
    ChatStore* store_;
    QHash<qint64, Open> open_;
    QTimer timer_;
};

}  // namespace folio::app
