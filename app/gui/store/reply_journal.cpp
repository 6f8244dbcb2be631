#include "app/gui/store/reply_journal.h"

#include "app/gui/store/chat_store.h"

namespace folio::app {

ReplyJournal::ReplyJournal(ChatStore* store, int flushIntervalMs, QObject* parent)
    : QObject(parent), store_(store) {
    timer_.setInterval(flushIntervalMs);
    connect(&timer_, &QTimer::timeout, this, &ReplyJournal::flush);
}

ReplyJournal::~ReplyJournal() { flush(); }

qint64 ReplyJournal::begin(MessageRecord reply) {
    reply.role = QStringLiteral("assistant");
    reply.status = MessageStatus::Streaming;
    const qint64 id = store_->addMessage(reply);
    open_.insert(id, Open{reply.content, false});
    if (!timer_.isActive()) timer_.start();
    return id;
}

qint64 ReplyJournal::reopen(qint64 existingId) {
    const MessageRecord m = store_->message(existingId);
    if (m.id == 0) return 0;
    ReplyStats stats = m.stats;
    stats.finishReason.clear();
    store_->finishReply(existingId, m.content, stats, MessageStatus::Streaming);
    open_.insert(existingId, Open{m.content, false});
    if (!timer_.isActive()) timer_.start();
    return existingId;
}

void ReplyJournal::append(qint64 messageId, const QString& delta) {
    auto it = open_.find(messageId);
    if (it == open_.end() || delta.isEmpty()) return;
    it->text += delta;
    it->dirty = true;
}

QString ReplyJournal::text(qint64 messageId) const { return open_.value(messageId).text; }

void ReplyJournal::finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error) {
    auto it = open_.find(messageId);
    if (it == open_.end()) return;
    store_->finishReply(messageId, it->text, stats, status, error);
    open_.erase(it);
    if (open_.isEmpty()) timer_.stop();
}

void ReplyJournal::flush() {
    int n = 0;
    QSqlDatabase& db = store_->database();
    const bool tx = db.transaction();
    for (auto it = open_.begin(); it != open_.end(); ++it) {
        if (!it->dirty) continue;
        store_->updateContent(it.key(), it->text);
        it->dirty = false;
        ++n;
    }
    if (tx) db.commit();
    if (n > 0) emit flushed(n);
}

}  // namespace folio::app
