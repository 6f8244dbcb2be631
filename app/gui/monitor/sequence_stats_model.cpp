#include "app/gui/monitor/sequence_stats_model.h"

#include <algorithm>

#include "app/gui/chat/thread_guard.h"

namespace folio::app {
namespace {

QString stateName(folio::SequenceStats::State s) {
    switch (s) {
    case folio::SequenceStats::State::Waiting: return QStringLiteral("waiting");
    case folio::SequenceStats::State::Prefilling: return QStringLiteral("prefilling");
    case folio::SequenceStats::State::Decoding: return QStringLiteral("decoding");
    case folio::SequenceStats::State::Preempted: return QStringLiteral("preempted");
    }
    return QStringLiteral("waiting");
}

}  // namespace

SequenceStatsModel::SequenceStatsModel(std::function<QString(qint64)> titleOf, QObject* parent)
    : QAbstractListModel(parent), titleOf_(std::move(titleOf)) {}

qint64 SequenceStatsModel::conversationOfTag(const std::string& tag) {
    return tag.size() > 1 && tag[0] == 'c' ? QByteArray::fromStdString(tag.substr(1)).toLongLong() : 0;
}

int SequenceStatsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> SequenceStatsModel::roleNames() const {
    return {{TagRole, "tag"}, {TitleRole, "title"}, {StateRole, "phase"}, {PromptTokensRole, "promptTokens"},
            {GeneratedTokensRole, "generatedTokens"}, {BlocksRole, "blocks"}, {SharedBlocksRole, "sharedBlocks"},
            {PrefillRole, "prefillTokS"}, {DecodeRole, "decodeTokS"}, {ConversationIdRole, "conversationId"}, {TtftRole, "ttftMs"}};
}

QVariant SequenceStatsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rows_.size()) return {};
    const Row& r = rows_[index.row()];
    const folio::SequenceStats* s = r.finished ? nullptr : &r.live;
    const Finished* f = &r.done;
    const qint64 conversation = s ? conversationOfTag(s->tag) : f->conversationId;
    const QString tag = s ? QString::fromStdString(s->tag) : QStringLiteral("c%1").arg(conversation);
    switch (role) {
    case TagRole: return tag;
    case TitleRole: {
        // A request of the local OpenAI server (tag "api", app/server): a row of its own.
        if (tag.startsWith(QLatin1String("api"))) return QStringLiteral("API");
        const QString t = titleOf_ ? titleOf_(conversation) : QString();
        return t.isEmpty() ? tag : t;
    }
    case StateRole: return s ? stateName(s->state) : QStringLiteral("finished");
    case PromptTokensRole: return s ? s->prompt_tokens : f->timings.prompt_tokens;
    case GeneratedTokensRole: return s ? s->generated_tokens : f->timings.generated_tokens;
    case BlocksRole: return s ? s->blocks : 0;
    case SharedBlocksRole: return s ? s->shared_blocks : 0;
    case PrefillRole: return s ? s->prefill_tok_s : f->timings.prefill_tok_s;
    case DecodeRole: return s ? s->decode_tok_s : f->timings.decode_tok_s;
    case ConversationIdRole: return conversation;
    case TtftRole: return s ? 0.0 : f->timings.ttft_ms;
    default: return {};
    }
}

void SequenceStatsModel::setSequences(std::vector<folio::SequenceStats> live) {
    requireOwnThread(this, "SequenceStatsModel::setSequences");
    live_ = std::move(live);
    show();
}

void SequenceStatsModel::addFinished(qint64 conversationId, const folio::RequestTimings& timings) {
    requireOwnThread(this, "SequenceStatsModel::addFinished");
    finished_.erase(std::remove_if(finished_.begin(), finished_.end(),
                                   [&](const Finished& f) { return f.conversationId == conversationId; }),
                    finished_.end());
    finished_.prepend(Finished{conversationId, timings});
    while (finished_.size() > kFinishedRows) finished_.removeLast();
    // The engine's next snapshot may still list the sequence; until then it shows as finished.
    live_.erase(std::remove_if(live_.begin(), live_.end(),
                               [&](const folio::SequenceStats& l) { return conversationOfTag(l.tag) == conversationId; }),
                live_.end());
    show();
}

void SequenceStatsModel::clear() {
    finished_.clear();
    live_.clear();
    show();
}

void SequenceStatsModel::show() {
    QList<Row> rows;
    for (const folio::SequenceStats& s : live_) rows << Row{false, s, {}};
    for (const Finished& f : std::as_const(finished_)) {
        const bool running = std::any_of(live_.cbegin(), live_.cend(),
                                         [&](const folio::SequenceStats& s) { return conversationOfTag(s.tag) == f.conversationId; });
        if (!running) rows << Row{true, {}, f};
    }
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

const folio::SequenceStats* SequenceStatsModel::find(qint64 conversationId) const {
    for (const folio::SequenceStats& s : live_) {
        if (conversationOfTag(s.tag) == conversationId) return &s;
    }
    return nullptr;
}

}  // namespace folio::app
