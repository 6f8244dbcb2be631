#pragma once
// Per-conversation breakdown of the engine: one row per sequence in the last stats snapshot, then
// the conversations whose replies finished recently (newest first, at most kFinishedRows) with their
// final figures, unless they are running again.
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
    static constexpr int kFinishedRows = 8;
    void setSequences(const QList<SequenceSnapshot>& seqs);
    void addFinished(const SequenceSnapshot& s);
    void clear();
    // The snapshot row of a conversation, if it has a sequence in the engine.
    const SequenceSnapshot* find(qint64 conversationId) const;

    static qint64 conversationOfTag(const QString& tag);

signals:
    void countChanged();

private:
    void show(QList<SequenceSnapshot> rows);

    std::function<QString(qint64)> titleOf_;
    QList<SequenceSnapshot> live_, finished_;
    QList<SequenceSnapshot> rows_;  // live_, then finished_ rows whose tag is not live
};

}  // namespace folio::app
