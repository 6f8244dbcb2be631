#include "app/gui/chat/conversation_list_model.h"

#include <QDateTime>

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/thread_guard.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {
namespace {

// "14:05", "Yesterday", "Mon", "12 Mar", "12 Mar 2023": short, like a mail or chat client.
QString when(qint64 ms) {
    const QDateTime t = QDateTime::fromMSecsSinceEpoch(ms);
    const QDate today = QDate::currentDate();
    const qint64 days = t.date().daysTo(today);
    if (days == 0) return t.toString("HH:mm");
    if (days == 1) return QObject::tr("Yesterday");
    if (days < 7) return t.toString("ddd");
    if (t.date().year() == today.year()) return t.toString("d MMM");
    return t.toString("d MMM yyyy");
}

}  // namespace

ConversationListModel::ConversationListModel(ChatStore* store, GenerationHub* hub, QObject* parent)
    : QAbstractListModel(parent), store_(store), hub_(hub) {
    connect(hub_, &GenerationHub::generatingChanged, this, [this](qint64 c, bool) {
        const int row = rowOfConversation(c);
        if (row >= 0) emit dataChanged(index(row), index(row), {GeneratingRole});
    });
    reload();
}

int ConversationListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> ConversationListModel::roleNames() const {
    return {{ConversationIdRole, "conversationId"}, {TitleRole, "title"}, {UpdatedRole, "updatedAt"},
            {WhenRole, "when"}, {GeneratingRole, "generating"}, {PresetRole, "preset"}};
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const ConversationRecord& c = rows_[index.row()];
    switch (role) {
    case ConversationIdRole: return c.id;
    case TitleRole: return c.title.isEmpty() ? tr("New chat") : c.title;
    case UpdatedRole: return c.updatedAt;
    case WhenRole: return when(c.updatedAt);
    case GeneratingRole: return hub_->isGenerating(c.id);
    case PresetRole: return c.preset;
    default: return {};
    }
}

void ConversationListModel::reload() {
    requireOwnThread(this, "ConversationListModel::reload");
    beginResetModel();
    rows_ = store_->conversations();
    endResetModel();
    emit countChanged();
}

QString ConversationListModel::titleOf(qint64 conversationId) const {
    for (const auto& c : rows_) {
        if (c.id == conversationId) return c.title.isEmpty() ? tr("New chat") : c.title;
    }
    return {};
}

int ConversationListModel::rowOfConversation(qint64 conversationId) const {
    for (int i = 0; i < rows_.size(); ++i) {
        if (rows_[i].id == conversationId) return i;
    }
    return -1;
}

ConversationFilterModel::ConversationFilterModel(ConversationListModel* source, QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSourceModel(source);
    setFilterRole(ConversationListModel::TitleRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(this, &QAbstractItemModel::rowsInserted, this, &ConversationFilterModel::countChanged);
    connect(this, &QAbstractItemModel::rowsRemoved, this, &ConversationFilterModel::countChanged);
    connect(this, &QAbstractItemModel::modelReset, this, &ConversationFilterModel::countChanged);
}

void ConversationFilterModel::setFilterText(const QString& text) {
    if (text == filterText_) return;
    filterText_ = text;
    setFilterFixedString(text);
    emit filterTextChanged();
    emit countChanged();
}

}  // namespace folio::app
