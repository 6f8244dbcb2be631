#include "app/gui/compare/compare_model.h"

#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/chat/thread_guard.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {

CompareModel::CompareModel(ChatStore* store, GenerationHub* hub, ChatActions* actions, MonitorModel* monitor,
                           QObject* parent)
    : QAbstractListModel(parent), store_(store), hub_(hub), actions_(actions), monitor_(monitor) {
    connect(hub_, &GenerationHub::generatingChanged, this, [this](qint64 c, bool) {
        for (int i = 0; i < int(columns_.size()); ++i) {
            if (columns_[i].conversationId == c) refreshRow(i);
        }
        emit generatingChanged();
    });
    connect(monitor_, &MonitorModel::updated, this, [this] {
        if (!columns_.empty()) emit dataChanged(index(0), index(int(columns_.size()) - 1), {BlocksRole, SharedBlocksRole, DecodeRole});
        emit statsChanged();
    });
}

CompareModel::~CompareModel() = default;

int CompareModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(columns_.size()); }

QHash<int, QByteArray> CompareModel::roleNames() const {
    return {{ConversationIdRole, "conversationId"}, {TitleRole, "title"}, {PresetRole, "preset"},
            {SystemPromptRole, "systemPrompt"}, {MessagesRole, "messages"}, {GeneratingRole, "generating"},
            {BlocksRole, "blocks"}, {SharedBlocksRole, "sharedBlocks"}, {DecodeRole, "decodeTokS"},
            {TemperatureRole, "temperature"}};
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(columns_.size())) return {};
    const Column& col = columns_[index.row()];
    const folio::SequenceStats* seq = monitor_->sequences()->find(col.conversationId);
    switch (role) {
    case ConversationIdRole: return col.conversationId;
    case MessagesRole: return QVariant::fromValue(static_cast<QObject*>(col.messages.get()));
    case GeneratingRole: return hub_->isGenerating(col.conversationId);
    case BlocksRole: return seq ? seq->blocks : 0;
    case SharedBlocksRole: return seq ? seq->shared_blocks : 0;
    case DecodeRole: return seq ? seq->decode_tok_s : 0.0;
    default: break;
    }
    const ConversationRecord c = store_->conversation(col.conversationId);
    switch (role) {
    case TitleRole: return c.title.isEmpty() ? tr("New chat") : c.title;
    case PresetRole: return c.preset;
    case SystemPromptRole: return c.systemPrompt;
    case TemperatureRole: return c.sampling.temperature;
    default: return {};
    }
}

void CompareModel::startNew(int count, const QString& systemPrompt) {
    requireOwnThread(this, "CompareModel::startNew");
    count = std::clamp(count, 2, kMaxColumns);
    beginResetModel();
    columns_.clear();
    const QList<SamplingPreset>& presets = samplingPresets();
    for (int i = 0; i < count; ++i) {
        const SamplingPreset& p = presets[i % presets.size()];
        const qint64 id = actions_->newConversation(tr("Compare · %1").arg(p.name), p.name, systemPrompt);
        auto model = std::make_unique<MessageListModel>(store_, hub_);
        model->setConversationId(id);
        columns_.push_back(Column{id, std::move(model)});
    }
    endResetModel();
    emit countChanged();
}

bool CompareModel::addConversation(qint64 conversationId) {
    requireOwnThread(this, "CompareModel::addConversation");
    if (int(columns_.size()) >= kMaxColumns || store_->conversation(conversationId).id == 0) return false;
    for (const Column& c : columns_) {
        if (c.conversationId == conversationId) return false;
    }
    const int row = int(columns_.size());
    beginInsertRows({}, row, row);
    auto model = std::make_unique<MessageListModel>(store_, hub_);
    model->setConversationId(conversationId);
    columns_.push_back(Column{conversationId, std::move(model)});
    endInsertRows();
    emit countChanged();
    return true;
}

void CompareModel::removeAt(int index) {
    requireOwnThread(this, "CompareModel::removeAt");
    if (index < 0 || index >= int(columns_.size())) return;
    beginRemoveRows({}, index, index);
    columns_.erase(columns_.begin() + index);
    endRemoveRows();
    emit countChanged();
}

void CompareModel::setPreset(int index, const QString& preset) {
    if (index < 0 || index >= int(columns_.size())) return;
    const ConversationRecord c = store_->conversation(columns_[index].conversationId);
    const SamplingPreset p = presetNamed(preset);
    store_->updateSettings(c.id, c.systemPrompt, p.settings, p.name);
    refreshRow(index);
}

void CompareModel::setSystemPrompt(int index, const QString& systemPrompt) {
    if (index < 0 || index >= int(columns_.size())) return;
    const ConversationRecord c = store_->conversation(columns_[index].conversationId);
    store_->updateSettings(c.id, systemPrompt, c.sampling, c.preset);
    refreshRow(index);
}

int CompareModel::send(const QString& text) {
    requireOwnThread(this, "CompareModel::send");
    int started = 0;
    for (const Column& c : columns_) {
        if (actions_->send(c.conversationId, text) > 0) ++started;
    }
    return started;
}

void CompareModel::stopAll() {
    for (const Column& c : columns_) hub_->stop(c.conversationId);
}

qint64 CompareModel::conversationAt(int index) const {
    return index >= 0 && index < int(columns_.size()) ? columns_[index].conversationId : 0;
}

bool CompareModel::generating() const {
    for (const Column& c : columns_) {
        if (hub_->isGenerating(c.conversationId)) return true;
    }
    return false;
}

int CompareModel::sharedBlocks() const {
    int most = 0;
    for (const Column& c : columns_) {
        if (const folio::SequenceStats* s = monitor_->sequences()->find(c.conversationId)) most = std::max(most, s->shared_blocks);
    }
    return most;
}

double CompareModel::prefixHitRate() const { return monitor_->stats().kv.prefix_hit_rate(); }

void CompareModel::refreshRow(int row) {
    emit dataChanged(index(row), index(row));
}

}  // namespace folio::app
