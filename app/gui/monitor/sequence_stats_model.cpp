#include "app/gui/monitor/sequence_stats_model.h"

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
    if (seqs.size() == rows_.size()) {
        rows_ = seqs;
        if (!rows_.isEmpty()) emit dataChanged(index(0), index(int(rows_.size()) - 1));
        return;
    }
    beginResetModel();
    rows_ = seqs;
    endResetModel();
    emit countChanged();
}

const SequenceSnapshot* SequenceStatsModel::find(qint64 conversationId) const {
    for (const SequenceSnapshot& s : rows_) {
        if (conversationOfTag(s.tag) == conversationId) return &s;
    }
    return nullptr;
}

}  // namespace folio::app
