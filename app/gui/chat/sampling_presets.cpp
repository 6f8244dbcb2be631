#include "app/gui/chat/sampling_presets.h"

namespace folio::app {

const QList<SamplingPreset>& samplingPresets() {
    // temperature, top-p, top-k, min-p, repetition penalty, max tokens, seed
    static const QList<SamplingPreset> presets = {
        {"Balanced", "Everyday chat: varied but on topic", {0.7, 0.9, 40, 0.05, 1.1, 512, -1}},
        {"Precise", "Facts and code: low temperature", {0.2, 0.9, 40, 0.05, 1.05, 512, -1}},
        {"Creative", "Stories and ideas: more surprise", {1.0, 0.95, 0, 0.02, 1.05, 768, -1}},
        {"Deterministic", "Greedy decoding, same answer every time", {0.0, 1.0, 0, 0.0, 1.0, 512, 0}},
    };
    return presets;
}

SamplingPreset presetNamed(const QString& name) {
    for (const SamplingPreset& p : samplingPresets()) {
        if (p.name == name) return p;
    }
    return samplingPresets().front();
}

int SamplingPresetModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(samplingPresets().size());
}

QVariant SamplingPresetModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= samplingPresets().size()) return {};
    const SamplingPreset& p = samplingPresets()[index.row()];
    if (role == NameRole || role == Qt::DisplayRole) return p.name;
    if (role == DescriptionRole) return p.description;
    return {};
}

QHash<int, QByteArray> SamplingPresetModel::roleNames() const {
    return {{NameRole, "name"}, {DescriptionRole, "description"}};
}

}  // namespace folio::app
