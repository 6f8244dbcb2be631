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
    open_.insert(id, Open{joinReasoning(reply.reasoning, !reply.reasoning.isEmpty(), reply.content), false, reply.reasoningMs});
    if (!timer_.isActive()) timer_.start();
    return id;
}

qint64 ReplyJournal::reopen(qint64 existingId) {
    const MessageRecord m = store_->message(existingId);
    if (m.id == 0) return 0;
    ReplyStats stats = m.stats;
    stats.finishReason.clear();
    store_->finishReply(existingId, m.content, stats, MessageStatus::Streaming);
    // Its reasoning, if any, is closed: the continuation is more answer.
    open_.insert(existingId, Open{joinReasoning(m.reasoning, !m.reasoning.isEmpty(), m.content), false, m.reasoningMs});
    if (!timer_.isActive()) timer_.start();
    return existingId;
}

void ReplyJournal::append(qint64 messageId, const QString& delta) {
    auto it = open_.find(messageId);
    if (it == open_.end() || delta.isEmpty()) return;
    it->raw += delta;
    it->dirty = true;
}

ReasoningSplit ReplyJournal::split(qint64 messageId) const {
    const auto it = open_.constFind(messageId);
    return it == open_.constEnd() ? ReasoningSplit{} : splitReasoning(it->raw);
}

void ReplyJournal::setReasoningMs(qint64 messageId, qint64 ms) {
    auto it = open_.find(messageId);
    if (it == open_.end()) return;
    it->reasoningMs = ms;
    it->dirty = true;
}

void ReplyJournal::finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error) {
    auto it = open_.find(messageId);
    if (it == open_.end()) return;
    const ReasoningSplit s = splitReasoning(it->raw, /*complete=*/true);
    QSqlDatabase& db = store_->database();
    const bool tx = db.transaction();  // the text and the status land together
    try {
        store_->updateContent(messageId, s.answer, s.reasoning, it->reasoningMs);
        store_->finishReply(messageId, s.answer, stats, status, error);
    } catch (...) {
        if (tx) db.rollback();
        throw;
    }
    if (tx) db.commit();
    open_.erase(it);
    if (open_.isEmpty()) timer_.stop();
}

void ReplyJournal::flush() {
    int n = 0;
    QSqlDatabase& db = store_->database();
    const bool tx = db.transaction();
    for (auto it = open_.begin(); it != open_.end(); ++it) {
        if (!it->dirty) continue;
        const ReasoningSplit s = splitReasoning(it->raw);
        store_->updateContent(it.key(), s.answer, s.reasoning, it->reasoningMs);
        it->dirty = false;
        ++n;
    }
    if (tx) db.commit();
    if (n > 0) emit flushed(n);
}

}  // namespace folio::app
