#include "app/gui/store/reply_journal.h"

#include <algorithm>

#include "app/gui/store/chat_store.h"

namespace folio::app {

ReplyJournal::ReplyJournal(ChatStore* store, int flushIntervalMs, QObject* parent)
    : QObject(parent), store_(store) {
    timer_.setInterval(flushIntervalMs);
    connect(&timer_, &QTimer::timeout, this, &ReplyJournal::flush);
}

ReplyJournal::~ReplyJournal() { flush(); }

qint64 ReplyJournal::begin(MessageRecord reply, int drafts) {
    reply.role = QStringLiteral("assistant");
    reply.status = MessageStatus::Streaming;
    const qint64 id = store_->addMessage(reply);
    Open o;
    o.drafts << Draft{joinReasoning(reply.reasoning, !reply.reasoning.isEmpty(), reply.content), reply.reasoningMs};
    for (int i = 1; i < std::clamp(drafts, 1, kMaxDrafts); ++i) o.drafts << Draft{};
    // The drafts' rows exist from the start: a reply killed before its first flush still reads
    // back as a reply with drafts (empty ones), not as a plain one.
    if (o.drafts.size() > 1) {
        for (int i = 0; i < o.drafts.size(); ++i) store_->saveDraft(id, DraftRecord{i});
    }
    open_.insert(id, o);
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
    Open o;
    o.drafts << Draft{joinReasoning(m.reasoning, !m.reasoning.isEmpty(), m.content), m.reasoningMs};
    open_.insert(existingId, o);
    if (!timer_.isActive()) timer_.start();
    return existingId;
}

ReplyJournal::Draft* ReplyJournal::draftOf(qint64 messageId, int draft) {
    auto it = open_.find(messageId);
    if (it == open_.end()) return nullptr;
    if (draft < 0) draft = it->chosen;
    return draft < it->drafts.size() ? &it->drafts[draft] : nullptr;
}

void ReplyJournal::append(qint64 messageId, int draft, const QString& delta) {
    Draft* d = draftOf(messageId, draft);
    if (!d || delta.isEmpty()) return;
    d->raw += delta;
    open_[messageId].dirty = true;
}

ReasoningSplit ReplyJournal::split(qint64 messageId, int draft) const {
    const auto it = open_.constFind(messageId);
    if (it == open_.constEnd()) return ReasoningSplit{};
    if (draft < 0) draft = it->chosen;
    return draft < it->drafts.size() ? splitReasoning(it->drafts[draft].raw) : ReasoningSplit{};
}

qint64 ReplyJournal::reasoningMs(qint64 messageId, int draft) const {
    const auto it = open_.constFind(messageId);
    if (it == open_.constEnd()) return 0;
    if (draft < 0) draft = it->chosen;
    return draft < it->drafts.size() ? it->drafts[draft].reasoningMs : 0;
}

void ReplyJournal::setReasoningMs(qint64 messageId, int draft, qint64 ms) {
    Draft* d = draftOf(messageId, draft);
    if (!d) return;
    d->reasoningMs = ms;
    open_[messageId].dirty = true;
}

void ReplyJournal::choose(qint64 messageId, int draft) {
    auto it = open_.find(messageId);
    if (it == open_.end() || draft < 0 || draft >= it->drafts.size() || draft == it->chosen) return;
    it->chosen = draft;
    it->dirty = true;
}

void ReplyJournal::finishDraft(qint64 messageId, int draft, int generatedTokens, const QString& finishReason) {
    Draft* d = draftOf(messageId, draft);
    if (!d) return;
    d->tokens = generatedTokens;
    d->finishReason = finishReason;
    open_[messageId].dirty = true;
}

// The chosen draft as the message's text; with drafts, each draft's row too.
void ReplyJournal::write(qint64 messageId, const Open& o, bool complete) {
    const Draft& chosen = o.drafts[o.chosen];
    const ReasoningSplit s = splitReasoning(chosen.raw, complete);
    store_->updateContent(messageId, s.answer, s.reasoning, chosen.reasoningMs);
    if (o.drafts.size() < 2) return;
    store_->setChosenDraft(messageId, o.chosen);
    for (int i = 0; i < o.drafts.size(); ++i) {
        const Draft& d = o.drafts[i];
        const ReasoningSplit ds = splitReasoning(d.raw, complete);
        store_->saveDraft(messageId, DraftRecord{i, ds.answer, ds.reasoning, d.reasoningMs, d.tokens, d.finishReason});
    }
}

void ReplyJournal::finish(qint64 messageId, const ReplyStats& stats, MessageStatus status, const QString& error) {
    auto it = open_.find(messageId);
    if (it == open_.end()) return;
    const QString answer = splitReasoning(it->drafts[it->chosen].raw, /*complete=*/true).answer;
    QSqlDatabase& db = store_->database();
    const bool tx = db.transaction();  // the text and the status land together
    try {
        write(messageId, *it, /*complete=*/true);
        store_->finishReply(messageId, answer, stats, status, error);
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
        write(it.key(), *it, /*complete=*/false);
        it->dirty = false;
        ++n;
    }
    if (tx) db.commit();
    if (n > 0) emit flushed(n);
}

}  // namespace folio::app
