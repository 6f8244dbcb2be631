#pragma once
// Saves replies while they stream: the text grows in memory and is written at most every
// `flushInterval` (250 ms by default, one transaction for all replies), so a killed process loses
// under half a second of text; the row says 'streaming' until finish() and reads as 'interrupted'
// after a crash.
#include <QHash>
#include <QObject>
#include <QTimer>

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
    QString text(qint64 messageId) const;
    // Final write with stats and status (Complete, Interrupted, Error with `error` saying why).
    void finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error = {});
    bool isOpen(qint64 messageId) const { return open_.contains(messageId); }

    // Writes every reply with unsaved text now.
    void flush();

signals:
    void flushed(int replies);  // for tests and the crash harness

private:
    struct Open {
        QString text;
        bool dirty = false;
    };
    ChatStore* store_;
    QHash<qint64, Open> open_;
    QTimer timer_;
};

}  // namespace folio::app
