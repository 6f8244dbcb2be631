#include "app/gui/monitor/sequence_stats_model.h"

#include <algorithm>

#include "app/gui/chat/thread_guard.h"

namespace folio::app {

SequenceStatsModel::SequenceStatsModel(std::function<QString(qint64)> titleOf, QObject* parent)
    : QAbstractListModel(parent), titleOf_(std::move(titleOf)) {}

qint64 SequenceStatsModel::conversationOfTag(const QString& tag) {
    return tag.startsWith('c') ? tag.mid(1).toLongLong() : 0;
}

int SequenceStatsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> SequenceStatsModel::roleNames() const {
    return {{TagRole, "tag"}, {TitleRole, "title"}, {StateRole, "phase"}, {PromptTokensRole, "promptTokens"},
            {GeneratedTokensRole, "generatedTokens"}, {BlocksRole, "blocks"}, {SharedBlocksRole, "sharedBlocks"},
            {PrefillRole, "prefillTokS"}, {DecodeRole, "decodeTokS"}, {ConversationIdRole, "conversationId"}};
}

QVariant SequenceStatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const SequenceSnapshot& s = rows_[index.row()];
    switch (role) {
    case TagRole: return s.tag;
    case TitleRole: {
        const QString t = titleOf_ ? titleOf_(conversationOfTag(s.tag)) : QString();
        return t.isEmpty() ? s.tag : t;
    }
    case StateRole: return s.state;
    case PromptTokensRole: return s.promptTokens;
    case GeneratedTokensRole: return s.generatedTokens;
    case BlocksRole: return s.blocks;
    case SharedBlocksRole: return s.sharedBlocks;
    case PrefillRole: return s.prefillTokS;
    case DecodeRole: return s.decodeTokS;
    case ConversationIdRole: return conversationOfTag(s.tag);
    default: return {};
    }
}

void SequenceStatsModel::setSequences(const QList<SequenceSnapshot>& seqs) {
    requireOwnThread(this, "SequenceStatsModel::setSequences");
    live_ = seqs;
    QList<SequenceSnapshot> rows = live_;
    for (const SequenceSnapshot& f : std::as_const(finished_)) {
        const bool running = std::any_of(live_.cbegin(), live_.cend(), [&](const SequenceSnapshot& s) { return s.tag == f.tag; });
        if (!running) rows << f;
    }
    show(std::move(rows));
}

void SequenceStatsModel::addFinished(const SequenceSnapshot& s) {
    requireOwnThread(this, "SequenceStatsModel::addFinished");
    finished_.erase(std::remove_if(finished_.begin(), finished_.end(), [&](const SequenceSnapshot& f) { return f.tag == s.tag; }),
                    finished_.end());
    finished_.prepend(s);
    while (finished_.size() > kFinishedRows) finished_.removeLast();
    // The engine's next snapshot may still list the sequence; until then it shows as finished.
    live_.erase(std::remove_if(live_.begin(), live_.end(), [&](const SequenceSnapshot& l) { return l.tag == s.tag; }), live_.end());
    setSequences(live_);
}

void SequenceStatsModel::clear() {
    finished_.clear();
    setSequences({});
}

void SequenceStatsModel::show(QList<SequenceSnapshot> rows) {
    if (rows.size() == rows_.size()) {
        rows_ = std::move(rows);
        if (!rows_.isEmpty()) emit dataChanged(index(0), index(int(rows_.size()) - 1));
        return;
    }
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    emit countChanged();
}

const SequenceSnapshot* SequenceStatsModel::find(qint64 conversationId) const {
    for (const SequenceSnapshot& s : live_) {
        if (conversationOfTag(s.tag) == conversationId) return &s;
    }
    return nullptr;
}

}  // namespace folio::app
