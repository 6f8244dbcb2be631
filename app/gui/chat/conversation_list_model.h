#pragma once
// The conversation list in the sidebar (newest first), with a title filter proxy for its search box.
#include <QAbstractListModel>
#include <QSortFilterProxyModel>
#include <QtQml/qqmlregistration.h>

#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;
class GenerationHub;

class ConversationListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { ConversationIdRole = Qt::UserRole + 1, TitleRole, UpdatedRole, WhenRole, GeneratingRole, PresetRole };

    ConversationListModel(ChatStore* store, GenerationHub* hub, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    Q_INVOKABLE void reload();
    Q_INVOKABLE QString titleOf(qint64 conversationId) const;
    Q_INVOKABLE int rowOfConversation(qint64 conversationId) const;

signals:
    void countChanged();

private:
    ChatStore* store_;
    GenerationHub* hub_;
    QList<ConversationRecord> rows_;
};

// Case-insensitive title filter; the view binds `filterText` to its search field.
class ConversationFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString filterText READ filterText WRITE setFilterText NOTIFY filterTextChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    explicit ConversationFilterModel(ConversationListModel* source, QObject* parent = nullptr);
    QString filterText() const { return filterText_; }
    void setFilterText(const QString& text);
    int count() const { return rowCount(); }

signals:
    void filterTextChanged();
    void countChanged();

private:
    QString filterText_;
};

}  // namespace folio::app
