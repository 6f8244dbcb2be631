#pragma once
// Saves replies while they stream: the text grows in memory and is written at most every
// `flushInterval` (250 ms by default, one transaction for all replies), so a killed process loses
// under half a second of text; the row says 'streaming' until finish() and reads as 'interrupted'
// after a crash. A thinking model's reply is kept as it came ("<think>…</think>answer") and written
// split: the answer as the message's content, the reasoning apart with how long it took.
#include <QHash>
#include <QObject>
#include <QTimer>

#include "app/gui/chat/reasoning_split.h"
#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;

class ReplyJournal : public QObject {
    Q_OBJECT
public:
    explicit ReplyJournal(ChatStore* store, int flushIntervalMs = 250, QObject* parent = nullptr);
    ~ReplyJournal() override;  // flushes

    // Adds an empty assistant reply (status streaming) under `parentId`; returns its id. With
    // `existingId` a reply being continued is reopened instead and its text extended.
    qint64 begin(MessageRecord reply);
    qint64 reopen(qint64 existingId);
    void append(qint64 messageId, const QString& delta);
    // The reply so far, split; text() is its answer (what the message's content will be).
    ReasoningSplit split(qint64 messageId) const;
    QString text(qint64 messageId) const { return split(messageId).answer; }
    // How long the model thought (set once its </think> arrives; kept when a reply is continued).
    qint64 reasoningMs(qint64 messageId) const { return open_.value(messageId).reasoningMs; }
    void setReasoningMs(qint64 messageId, qint64 ms);
    // Final write with stats and status (Complete, Interrupted, Error with `error` saying why).
    void finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error = {});
    bool isOpen(qint64 messageId) const { return open_.contains(messageId); }

    // Writes every reply with unsaved text now.
    void flush();

signals:
    void flushed(int replies);  // for tests and the crash harness

private:
    struct Open {
        QString raw;  // as the model wrote it
        bool dirty = false;
        qint64 reasoningMs = 0;
    };
    ChatStore* store_;
    QHash<qint64, Open> open_;
    QTimer timer_;
};

}  // namespace folio::app
