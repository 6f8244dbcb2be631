#pragma once
// Per-conversation breakdown of the engine: one row per sequence in the last stats snapshot (the
// engine's SequenceStats as they came), then the conversations whose replies finished recently
// (newest first, at most kFinishedRows) with the RequestTimings they ended with, unless they are
// running again.
#include <QAbstractListModel>
#include <functional>
#include <vector>
#include <QtQml/qqmlregistration.h>

#include "engine/runtime/engine_stats.h"

namespace folio::app {

class SequenceStatsModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the monitor")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
public:
    enum Role { TagRole = Qt::UserRole + 1, TitleRole, StateRole, PromptTokensRole, GeneratedTokensRole,
                BlocksRole, SharedBlocksRole, PrefillRole, DecodeRole, ConversationIdRole,
                TtftRole };  // time to first token (ms) of a finished reply; 0 while live
    // `titleOf` names a conversation for a tag "c<id>".
    explicit SequenceStatsModel(std::function<QString(qint64)> titleOf, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    static constexpr int kFinishedRows = 8;
    void setSequences(std::vector<folio::SequenceStats> live);
    void addFinished(qint64 conversationId, const folio::RequestTimings& timings);
    void clear();
    // The engine's sequence of a conversation, if it has one in the last snapshot.
    const folio::SequenceStats* find(qint64 conversationId) const;

    static qint64 conversationOfTag(const std::string& tag);

signals:
    void countChanged();

private:
    struct Finished {
        qint64 conversationId = 0;
        folio::RequestTimings timings;
    };
    // A row shows a live sequence or a finished reply.
    struct Row {
        bool finished = false;
        folio::SequenceStats live;
        Finished done;
    };
    void show();

    std::function<QString(qint64)> titleOf_;
    std::vector<folio::SequenceStats> live_;
    QList<Finished> finished_;
    QList<Row> rows_;  // live_, then finished_ rows whose conversation is not live
};

}  // namespace folio::app
