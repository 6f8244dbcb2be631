#include "app/gui/chat/generation_hub.h"

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
    const qint64 id = journal_->begin(reply);
    submit(conversationId, id, messages);
    return id;
}

bool GenerationHub::canContinue(const MessageRecord& m) {
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
                              bool continueFinal, int tokensBefore) {
    const ConversationRecord c = store_->conversation(conversationId);
    GenerationRequest r;
    r.tag = QStringLiteral("c%1").arg(conversationId);
    r.messages = std::move(messages);
    r.sampling = c.sampling;
    r.enableThinking = c.thinking;
    r.continueFinal = continueFinal;
    const quint64 ticket = bridge_->submit(r);
    Live live{conversationId, messageId, 0, tokensBefore};
    live.thoughtTimed = continueFinal;  // a continued reply's reasoning, if any, is closed and timed
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
    stats.timings.generated_tokens = live.tokensBefore + live.tokens;
    stats.finishReason = QStringLiteral("cancelled");
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

void GenerationHub::onDelta(quint64 ticket, const QString& text, int tokens) {
    requireOwnThread(this, "GenerationHub::onDelta");
    auto it = live_.find(ticket);
    if (it == live_.end()) return;  // stopped: late tokens are dropped
    it->tokens += tokens;
    const qint64 now = clock_.elapsed();
    if (it->firstTextAt < 0) it->firstTextAt = now;
    journal_->append(it->messageId, text);
    // Thinking time: from the first token (a thinking reply starts with its reasoning) to the chunk
    // that brought </think>, to the 16 ms the worker gathers tokens for.
    if (!it->thoughtTimed) {
        const ReasoningSplit s = journal_->split(it->messageId);
        if (s.hasReasoning && !s.thinking) {
            journal_->setReasoningMs(it->messageId, std::max<qint64>(1, now - it->firstTextAt));
            it->thoughtTimed = true;
        }
    }
    emit replyChanged(it->conversationId, it->messageId);
}

void GenerationHub::onFinished(const GenerationEnd& end) {
    requireOwnThread(this, "GenerationHub::onFinished");
    const auto it = live_.constFind(end.ticket);
    if (it == live_.constEnd()) return;
    const Live live = *it;
    live_.erase(it);
    byConversation_.remove(live.conversationId);
    ReplyStats stats = end.stats;
    if (stats.timings.generated_tokens == 0) stats.timings.generated_tokens = live.tokens;
    stats.timings.generated_tokens += live.tokensBefore;
    if (end.error) {
        stats.finishReason = QStringLiteral("error");
        emit error(end.message);
    }
    journal_->finish(live.messageId, stats, end.error ? MessageStatus::Error : MessageStatus::Complete,
                     end.error ? end.message : QString());
    emit generatingChanged(live.conversationId, false);
    emit replyFinished(live.conversationId, live.messageId);
}

}  // namespace folio::app
