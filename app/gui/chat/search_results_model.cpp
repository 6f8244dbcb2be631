#include "app/gui/chat/search_results_model.h"

#include "app/gui/chat/thread_guard.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {

SearchResultsModel::SearchResultsModel(ChatStore* store, QObject* parent) : QAbstractListModel(parent), store_(store) {}

int SearchResultsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(hits_.size()); }

QHash<int, QByteArray> SearchResultsModel::roleNames() const {
    return {{ConversationIdRole, "conversationId"}, {MessageIdRole, "messageId"}, {TitleRole, "title"},
            {RoleRole, "role"}, {SnippetRole, "snippet"}};
}

QVariant SearchResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= hits_.size()) return {};
    const SearchHit& h = hits_[index.row()];
    switch (role) {
    case ConversationIdRole: return h.conversationId;
    case MessageIdRole: return h.messageId;
    case TitleRole: return h.conversationTitle.isEmpty() ? tr("New chat") : h.conversationTitle;
    case RoleRole: return h.role;
    case SnippetRole: {
        // Rich text for a StyledText label: escape the message, then bold the matches.
        QString s = h.snippet.simplified().toHtmlEscaped();
        s.replace(QChar(2), QStringLiteral("<b>")).replace(QChar(3), QStringLiteral("</b>"));
        return s;
    }
    default: return {};
    }
}

void SearchResultsModel::setQuery(const QString& q) {
    if (q == query_) return;
    query_ = q;
    emit queryChanged();
    refresh();
}

void SearchResultsModel::refresh() {
    requireOwnThread(this, "SearchResultsModel::refresh");
    beginResetModel();
    hits_ = query_.trimmed().isEmpty() ? QList<SearchHit>{} : store_->search(query_, 50);
    endResetModel();
    emit countChanged();
}

}  // namespace folio::app
