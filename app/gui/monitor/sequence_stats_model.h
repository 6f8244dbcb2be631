#pragma once
// Per-conversation breakdown of the engine: one row per sequence in the last stats snapshot.
#include <QAbstractListModel>
#include <functional>
#include <QtQml/qqmlregistration.h>

#include "app/gui/bridge/bridge_types.h"

namespace folio::app {

class SequenceStatsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the monitor")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { TagRole = Qt::UserRole + 1, TitleRole, StateRole, PromptTokensRole, GeneratedTokensRole,
                BlocksRole, SharedBlocksRole, PrefillRole, DecodeRole, ConversationIdRole };
    // `titleOf` names a conversation for a tag "c<id>".
    explicit SequenceStatsModel(std::function<QString(qint64)> titleOf, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    void setSequences(const QList<SequenceSnapshot>& seqs);
    // The snapshot row of a conversation, if it has a sequence in the engine.
    const SequenceSnapshot* find(qint64 conversationId) const;

    static qint64 conversationOfTag(const QString& tag);

signals:
    void countChanged();

private:
    std::function<QString(qint64)> titleOf_;
    QList<SequenceSnapshot> rows_;
};

}  // namespace folio::app
