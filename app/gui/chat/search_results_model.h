#pragma once
// Full-text search over every message (FTS5), for the sidebar's search box.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;

class SearchResultsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString query READ query WRITE setQuery NOTIFY queryChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { ConversationIdRole = Qt::UserRole + 1, MessageIdRole, TitleRole, RoleRole, SnippetRole };
    explicit SearchResultsModel(ChatStore* store, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    QString query() const { return query_; }
    void setQuery(const QString& q);
    Q_INVOKABLE void refresh();

signals:
    void queryChanged();
    void countChanged();

private:
    ChatStore* store_;
    QString query_;
    QList<SearchHit> hits_;
};

}  // namespace folio::app
