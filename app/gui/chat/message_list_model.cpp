#include "app/gui/chat/message_list_model.h"

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/markdown_parts.h"
#include "app/gui/chat/thread_guard.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {
namespace {

QVariantList partsOf(const QString& text) {
    QVariantList out;
    for (const MarkdownPart& p : splitMarkdown(text)) {
        out << QVariantMap{{"kind", kindName(p.kind)}, {"text", p.text}, {"language", p.language},
                           {"level", p.level}, {"open", p.open}};
    }
    return out;
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
    if (m.stats.generatedTokens > 0) bits << QStringLiteral("%1 tokens").arg(m.stats.generatedTokens);
    if (m.stats.decodeTokS > 0) bits << QStringLiteral("%1 tok/s").arg(m.stats.decodeTokS, 0, 'f', 1);
    if (m.stats.prefillTokS > 0) bits << QStringLiteral("prefill %1 tok/s").arg(m.stats.prefillTokS, 0, 'f', 0);
    if (m.stats.ttftMs > 0) bits << QStringLiteral("first token %1 ms").arg(m.stats.ttftMs, 0, 'f', 0);
    if (m.stats.cachedPromptTokens > 0) bits << QStringLiteral("%1 prompt tokens cached").arg(m.stats.cachedPromptTokens);
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
            {IsLastRole, "isLast"}};
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const Row& r = rows_[index.row()];
    const MessageRecord& m = r.message;
    switch (role) {
    case MessageIdRole: return m.id;
    case RoleRole: return m.role;
    case ContentRole: return m.content;
    case PartsRole:
        if (!r.partsValid) {
            r.parts = partsOf(m.content);
            r.partsValid = true;
        }
        return r.parts;
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
    rows_.clear();
    if (conversationId_ > 0) {
        for (MessageRecord& m : store_->activePath(conversationId_)) {
            if (hub_->isLive(m.id)) {
                m.content = hub_->liveText(m.id);
                m.status = MessageStatus::Streaming;
            }
            Row row;
            const QList<qint64> sib = store_->siblings(m);
            row.siblingCount = int(sib.size());
            row.siblingIndex = int(sib.indexOf(m.id)) + 1;
            row.message = std::move(m);
            rows_ << row;
        }
    }
    endResetModel();
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
    r.message.content = hub_->liveText(messageId);
    r.message.status = MessageStatus::Streaming;
    r.partsValid = false;
    const QModelIndex idx = index(i);
    emit dataChanged(idx, idx, {ContentRole, PartsRole, StatusRole});
}

void MessageListModel::onReplyFinished(qint64 conversationId, qint64 messageId) {
    requireOwnThread(this, "MessageListModel::onReplyFinished");
    if (conversationId != conversationId_) return;
    const int i = rowOf(messageId);
    if (i < 0) return;
    Row& r = rows_[i];
    r.message = store_->message(messageId);
    r.partsValid = false;
    const QModelIndex idx = index(i);
    emit dataChanged(idx, idx);
}

}  // namespace folio::app
