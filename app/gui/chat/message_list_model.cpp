#include "app/gui/chat/message_list_model.h"

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_parts_model.h"
#include "app/gui/chat/thread_guard.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {
namespace {

// A stored reply as the parts model takes it: its reasoning, closed, and its answer.
ReasoningSplit storedReply(const MessageRecord& m) {
    ReasoningSplit s;
    s.reasoning = m.reasoning;
    s.hasReasoning = !m.reasoning.isEmpty();
    s.answer = m.content;
    return s;
}

QString author(const MessageRecord& m) {
    // An imported reply was not written by a model loaded here: say so, whatever the file claims.
    if (m.imported) return m.model.isEmpty() ? QStringLiteral("Imported") : QStringLiteral("Imported · %1").arg(m.model);
    return m.model.isEmpty() ? QStringLiteral("Assistant") : m.model;
}

QString details(const MessageRecord& m) {
    if (m.role != QLatin1String("assistant") || m.status == MessageStatus::Streaming) return {};
    // Figures in a file were not measured here: none are shown for imported replies.
    if (m.imported) return QStringLiteral("from an imported file, not generated here");
    QStringList bits;
    const folio::RequestTimings& t = m.stats.timings;
    if (t.generated_tokens > 0) bits << QStringLiteral("%1 tokens").arg(t.generated_tokens);
    if (t.decode_tok_s > 0) bits << QStringLiteral("%1 tok/s").arg(t.decode_tok_s, 0, 'f', 1);
    if (t.prefill_tok_s > 0) bits << QStringLiteral("prefill %1 tok/s").arg(t.prefill_tok_s, 0, 'f', 0);
    if (t.ttft_ms > 0) bits << QStringLiteral("first token %1 ms").arg(t.ttft_ms, 0, 'f', 0);
    if (t.cached_prompt_tokens > 0) bits << QStringLiteral("%1 prompt tokens cached").arg(t.cached_prompt_tokens);
    if (m.stats.finishReason == QLatin1String("length")) bits << QStringLiteral("max tokens reached");
    if (m.stats.finishReason == QLatin1String("cancelled")) bits << QStringLiteral("stopped");
    if (m.stats.finishReason == QLatin1String("context")) bits << QStringLiteral("context full");
    return bits.join(QStringLiteral(" · "));
}

}  // namespace

MessageListModel::MessageListModel(ChatStore* store, GenerationHub* hub, QObject* parent)
    : QAbstractListModel(parent), store_(store), hub_(hub) {
    connect(hub_, &GenerationHub::replyChanged, this, &MessageListModel::onReplyChanged);
    connect(hub_, &GenerationHub::replyFinished, this, &MessageListModel::onReplyFinished);
    connect(hub_, &GenerationHub::replyStarted, this, [this](qint64 c, qint64) {
        if (c == conversationId_) reload();
    });
    connect(hub_, &GenerationHub::pathChanged, this, [this](qint64 c) {
        if (c == conversationId_) reload();
    });
    connect(hub_, &GenerationHub::generatingChanged, this, [this](qint64 c, bool) {
        if (c == conversationId_) emit generatingChanged();
    });
}

int MessageListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> MessageListModel::roleNames() const {
    return {{MessageIdRole, "messageId"}, {RoleRole, "role"}, {ContentRole, "content"}, {PartsRole, "parts"},
            {StatusRole, "status"}, {FinishReasonRole, "finishReason"}, {ModelRole, "model"},
            {AuthorRole, "author"}, {ImportedRole, "imported"}, {ErrorRole, "error"}, {CanContinueRole, "canContinue"},
            {DetailsRole, "details"}, {SiblingIndexRole, "siblingIndex"}, {SiblingCountRole, "siblingCount"},
            {IsLastRole, "isLast"}, {DraftIndexRole, "draftIndex"}, {DraftCountRole, "draftCount"}};
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const Row& r = rows_[index.row()];
    const MessageRecord& m = r.message;
    switch (role) {
    case MessageIdRole: return m.id;
    case RoleRole: return m.role;
    case ContentRole: return m.content;
    case PartsRole: return QVariant::fromValue(static_cast<QObject*>(r.parts));
    case StatusRole: return statusName(m.status);
    case FinishReasonRole: return m.stats.finishReason;
    case ModelRole: return m.model;
    case AuthorRole: return author(m);
    case ImportedRole: return m.imported;
    case ErrorRole: return m.error;
    case CanContinueRole: return GenerationHub::canContinue(m);
    case DetailsRole: return details(m);
    case SiblingIndexRole: return r.siblingIndex;
    case SiblingCountRole: return r.siblingCount;
    case IsLastRole: return index.row() == rows_.size() - 1;
    case DraftIndexRole: return r.draftIndex;
    case DraftCountRole: return r.draftCount;
    default: return {};
    }
}

void MessageListModel::setConversationId(qint64 id) {
    if (id == conversationId_) return;
    conversationId_ = id;
    emit conversationIdChanged();
    emit generatingChanged();
    reload();
}

bool MessageListModel::generating() const { return hub_->isGenerating(conversationId_); }

void MessageListModel::reload() {
    requireOwnThread(this, "MessageListModel::reload");
    beginResetModel();
    // The views drop their delegates in endResetModel(); the old parts models go after that.
    QList<MessagePartsModel*> old;
    for (const Row& r : std::as_const(rows_)) old << r.parts;
    rows_.clear();
    if (conversationId_ > 0) {
        for (MessageRecord& m : store_->activePath(conversationId_)) {
            Row row;
            const QList<qint64> sib = store_->siblings(m);
            row.siblingCount = int(sib.size());
            row.siblingIndex = int(sib.indexOf(m.id)) + 1;
            if (m.role == QLatin1String("assistant")) {
                row.parts = new MessagePartsModel(this);
                row.draftCount = hub_->draftCount(m.id);
                row.draftIndex = hub_->chosenDraft(m.id) + 1;
                if (hub_->isLive(m.id)) {
                    const ReasoningSplit live = hub_->liveReply(m.id);
                    m.content = live.answer;
                    m.reasoning = live.reasoning;
                    m.status = MessageStatus::Streaming;
                    row.parts->setReply(live, hub_->liveReasoningMs(m.id));
                } else {
                    row.parts->setReply(storedReply(m), m.reasoningMs);
                }
            }
            row.message = std::move(m);
            rows_ << row;
        }
    }
    endResetModel();
    for (MessagePartsModel* p : std::as_const(old)) {
        if (p) p->deleteLater();
    }
    emit countChanged();
}

QString MessageListModel::lastText() const { return rows_.isEmpty() ? QString() : rows_.last().message.content; }

int MessageListModel::rowOf(qint64 messageId) const {
    for (int i = int(rows_.size()) - 1; i >= 0; --i) {
        if (rows_[i].message.id == messageId) return i;
    }
    return -1;
}

void MessageListModel::onReplyChanged(qint64 conversationId, qint64 messageId) {
    requireOwnThread(this, "MessageListModel::onReplyChanged");
    if (conversationId != conversationId_) return;
    const int i = rowOf(messageId);
    if (i < 0) return;
    Row& r = rows_[i];
    const int chosen = hub_->chosenDraft(messageId) + 1;
    const bool flipped = chosen != r.draftIndex;
    r.draftIndex = chosen;
    if (!hub_->isLive(messageId)) {  // a finished reply whose draft was switched
        r.message = store_->message(messageId);
        if (r.parts) r.parts->setReply(storedReply(r.message), r.message.reasoningMs);
        const QModelIndex idx = index(i);
        emit dataChanged(idx, idx);
        return;
    }
    const ReasoningSplit live = hub_->liveReply(messageId);
    r.message.content = live.answer;
    r.message.reasoning = live.reasoning;
    r.message.status = MessageStatus::Streaming;
    if (r.parts) r.parts->setReply(live, hub_->liveReasoningMs(messageId));
    const QModelIndex idx = index(i);
    QList<int> roles{ContentRole, StatusRole};
    if (flipped) roles << DraftIndexRole;
    emit dataChanged(idx, idx, roles);
}

void MessageListModel::onReplyFinished(qint64 conversationId, qint64 messageId) {
    requireOwnThread(this, "MessageListModel::onReplyFinished");
    if (conversationId != conversationId_) return;
    const int i = rowOf(messageId);
    if (i < 0) return;
    Row& r = rows_[i];
    r.message = store_->message(messageId);
    r.draftCount = r.message.draftCount;
    r.draftIndex = r.message.chosenDraft + 1;
    if (r.parts) r.parts->setReply(storedReply(r.message), r.message.reasoningMs);
    const QModelIndex idx = index(i);
    emit dataChanged(idx, idx);
}

}  // namespace folio::app
