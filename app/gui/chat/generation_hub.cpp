#include "app/gui/chat/generation_hub.h"

#include <algorithm>

#include "app/gui/bridge/reply_source.h"
#include "app/gui/chat/thread_guard.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"

namespace folio::app {
namespace {

// The conversation as the template gets it: the system prompt, then the branch on screen. A reply's
// reasoning goes with it as reasoning_content; whether a turn keeps it is the template's to decide
// (Qwen3's drops it from every turn before the last user message, as transformers and vLLM leave it to).
std::vector<folio::ChatMessage> history(const ConversationRecord& c, const QList<MessageRecord>& path) {
    std::vector<folio::ChatMessage> out;
    if (!c.systemPrompt.trimmed().isEmpty()) out.push_back({"system", c.systemPrompt.toStdString(), {}});
    for (const MessageRecord& m : path) out.push_back({m.role.toStdString(), m.content.toStdString(), m.reasoning.toStdString()});
    return out;
}

}  // namespace

GenerationHub::GenerationHub(ChatStore* store, ReplyJournal* journal, ReplySource* source, QObject* parent)
    : QObject(parent), store_(store), journal_(journal), bridge_(source) {
    clock_.start();
    // Same thread (both live on the GUI thread): the bridge already hopped the thread boundary.
    connect(bridge_, &ReplySource::delta, this, &GenerationHub::onDelta);
    connect(bridge_, &ReplySource::finished, this, &GenerationHub::onFinished);
}

qint64 GenerationHub::startReply(qint64 conversationId, qint64 parentId) {
    requireOwnThread(this, "GenerationHub::startReply");
    if (isGenerating(conversationId)) {
        emit error(tr("This chat is still generating: stop it first."));
        return 0;
    }
    const ConversationRecord c = store_->conversation(conversationId);
    // The history is the branch from the root down to the parent.
    store_->setActiveLeaf(conversationId, parentId);
    std::vector<folio::ChatMessage> messages = history(c, store_->activePath(conversationId));

    MessageRecord reply;
    reply.conversationId = conversationId;
    reply.parentId = parentId;
    reply.model = modelName_;
    reply.sampling = c.sampling;
    const int drafts = std::clamp(c.drafts, 1, kMaxDrafts);
    const qint64 id = journal_->begin(reply, drafts);
    submit(conversationId, id, messages, false, 0, drafts);
    return id;
}

bool GenerationHub::canContinue(const MessageRecord& m) {
    if (m.draftCount > 1) return false;
    if (m.role != QLatin1String("assistant") || m.content.trimmed().isEmpty()) return false;
    if (m.status == MessageStatus::Interrupted || m.status == MessageStatus::Error) return true;
    if (m.status != MessageStatus::Complete) return false;
    const QString& r = m.stats.finishReason;
    // Not "context": a reply that filled the model's context has no room left to go on.
    return r == QLatin1String("length") || r == QLatin1String("cancelled");
}

qint64 GenerationHub::continueReply(qint64 messageId) {
    requireOwnThread(this, "GenerationHub::continueReply");
    const MessageRecord m = store_->message(messageId);
    if (m.id == 0 || m.role != QLatin1String("assistant")) return 0;
    if (isGenerating(m.conversationId)) {
        emit error(tr("This chat is still generating: stop it first."));
        return 0;
    }
    const ConversationRecord c = store_->conversation(m.conversationId);
    store_->setActiveLeaf(m.conversationId, m.id);
    std::vector<folio::ChatMessage> messages = history(c, store_->activePath(m.conversationId));
    // No answer yet (nothing written, or stopped while thinking): there is no turn to go on with, so
    // the reply starts afresh in place.
    const bool partial = !m.content.trimmed().isEmpty();
    if (partial) {
        journal_->reopen(messageId);
    } else {
        messages.pop_back();
        store_->updateContent(messageId, QString());  // its old reasoning goes: a new one comes
        journal_->reopen(messageId);
    }
    submit(m.conversationId, messageId, std::move(messages), partial, partial ? m.stats.timings.generated_tokens : 0);
    return messageId;
}

quint64 GenerationHub::submit(qint64 conversationId, qint64 messageId, std::vector<folio::ChatMessage> messages,
                              bool continueFinal, int tokensBefore, int drafts) {
    const ConversationRecord c = store_->conversation(conversationId);
    GenerationRequest r;
    r.tag = QStringLiteral("c%1").arg(conversationId);
    r.messages = std::move(messages);
    r.sampling = c.sampling;
    r.enableThinking = c.thinking;
    r.continueFinal = continueFinal;
    r.n = drafts;
    const quint64 ticket = bridge_->submit(r);
    Live live{conversationId, messageId, tokensBefore};
    DraftClock clock;
    clock.thoughtTimed = continueFinal;  // a continued reply's reasoning, if any, is closed and timed
    for (int i = 0; i < drafts; ++i) live.drafts << clock;
    live_.insert(ticket, live);
    byConversation_.insert(conversationId, ticket);
    emit replyStarted(conversationId, messageId);
    emit generatingChanged(conversationId, true);
    return ticket;
}

void GenerationHub::stop(qint64 conversationId) { end(conversationId, MessageStatus::Complete); }

void GenerationHub::interruptAll() {
    const QList<qint64> convs = byConversation_.keys();
    for (qint64 c : convs) end(c, MessageStatus::Interrupted);
}

void GenerationHub::end(qint64 conversationId, MessageStatus status) {
    requireOwnThread(this, "GenerationHub::end");
    const auto it = byConversation_.constFind(conversationId);
    if (it == byConversation_.constEnd()) return;
    const quint64 ticket = *it;
    const Live live = live_.take(ticket);
    byConversation_.remove(conversationId);
    bridge_->cancel(ticket);
    ReplyStats stats;
    stats.timings.generated_tokens = live.tokensBefore + live.tokens();
    stats.finishReason = QStringLiteral("cancelled");
    for (int i = 0; i < live.drafts.size(); ++i) {
        if (live.drafts.size() > 1 && !live.drafts[i].ended) journal_->finishDraft(live.messageId, i, live.drafts[i].tokens, stats.finishReason);
    }
    journal_->finish(live.messageId, stats, status);
    emit generatingChanged(conversationId, false);
    emit replyFinished(conversationId, live.messageId);
}

qint64 GenerationHub::generatingMessage(qint64 conversationId) const {
    const auto it = byConversation_.constFind(conversationId);
    return it == byConversation_.constEnd() ? 0 : live_.value(*it).messageId;
}

QString GenerationHub::liveText(qint64 messageId) const { return journal_->text(messageId); }

ReasoningSplit GenerationHub::liveReply(qint64 messageId) const { return journal_->split(messageId); }

qint64 GenerationHub::liveReasoningMs(qint64 messageId) const { return journal_->reasoningMs(messageId); }

bool GenerationHub::isLive(qint64 messageId) const { return journal_->isOpen(messageId); }

int GenerationHub::Live::tokens() const {
    int n = 0;
    for (const DraftClock& d : drafts) n += d.tokens;
    return n;
}

int GenerationHub::draftCount(qint64 messageId) const {
    if (journal_->isOpen(messageId)) return journal_->draftCount(messageId);
    return store_->message(messageId).draftCount;
}

int GenerationHub::chosenDraft(qint64 messageId) const {
    if (journal_->isOpen(messageId)) return journal_->chosenDraft(messageId);
    return store_->message(messageId).chosenDraft;
}

bool GenerationHub::chooseDraft(qint64 messageId, int index) {
    requireOwnThread(this, "GenerationHub::chooseDraft");
    if (index < 0 || index >= draftCount(messageId)) return false;
    const MessageRecord m = store_->message(messageId);
    if (journal_->isOpen(messageId)) {
        journal_->choose(messageId, index);  // saved with the journal's next write
    } else {
        store_->chooseDraft(messageId, index);
    }
    emit replyChanged(m.conversationId, messageId);
    return true;
}

void GenerationHub::onDelta(quint64 ticket, const QString& text, int tokens, int draft) {
    requireOwnThread(this, "GenerationHub::onDelta");
    auto it = live_.find(ticket);
    if (it == live_.end()) return;  // stopped: late tokens are dropped
    if (draft < 0 || draft >= it->drafts.size() || it->drafts[draft].ended) return;  // that draft is done
    DraftClock& d = it->drafts[draft];
    d.tokens += tokens;
    const qint64 now = clock_.elapsed();
    if (d.firstTextAt < 0) d.firstTextAt = now;
    journal_->append(it->messageId, draft, text);
    // Thinking time: from the first token (a thinking reply starts with its reasoning) to the chunk
    // that brought </think>, to the 16 ms the worker gathers tokens for.
    if (!d.thoughtTimed) {
        const ReasoningSplit s = journal_->split(it->messageId, draft);
        if (s.hasReasoning && !s.thinking) {
            journal_->setReasoningMs(it->messageId, draft, std::max<qint64>(1, now - d.firstTextAt));
            d.thoughtTimed = true;
        }
    }
    emit replyChanged(it->conversationId, it->messageId);
}

void GenerationHub::onFinished(const GenerationEnd& end) {
    requireOwnThread(this, "GenerationHub::onFinished");
    const auto it = live_.find(end.ticket);
    if (it == live_.end()) return;
    if (end.draft < 0 || end.draft >= it->drafts.size() || it->drafts[end.draft].ended) return;
    DraftClock& d = it->drafts[end.draft];
    d.ended = true;
    const int tokens = end.stats.timings.generated_tokens > 0 ? end.stats.timings.generated_tokens : d.tokens;
    d.tokens = tokens;
    const QString reason = end.error ? QStringLiteral("error") : end.stats.finishReason;
    if (it->drafts.size() > 1) journal_->finishDraft(it->messageId, end.draft, tokens, reason);
    it->stats.timings = end.stats.timings;
    if (end.error && it->error.isEmpty()) {
        it->error = end.message.isEmpty() ? QStringLiteral("failed") : end.message;
        emit error(end.message);  // once per message, however many drafts fail
    }
    // The reply's finish reason is its chosen draft's (what Continue and the details line read).
    if (end.draft == journal_->chosenDraft(it->messageId) || it->stats.finishReason.isEmpty()) it->stats.finishReason = reason;
    for (const DraftClock& other : std::as_const(it->drafts)) {
        if (!other.ended) {
            emit replyChanged(it->conversationId, it->messageId);
            return;  // the message ends with its last draft
        }
    }
    const Live live = *it;
    live_.erase(it);
    byConversation_.remove(live.conversationId);
    ReplyStats stats = live.stats;
    stats.timings.generated_tokens = live.tokensBefore + live.tokens();
    // A plain reply that failed is an error. With drafts, one failing leaves the others: the message
    // is an error when its chosen draft failed.
    const bool failed = !live.error.isEmpty() && stats.finishReason == QLatin1String("error");
    journal_->finish(live.messageId, stats, failed ? MessageStatus::Error : MessageStatus::Complete,
                     failed ? live.error : QString());
    emit generatingChanged(live.conversationId, false);
    emit replyFinished(live.conversationId, live.messageId);
}

}  // namespace folio::app
