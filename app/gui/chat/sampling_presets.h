#pragma once
// Named sampling presets offered in the chat settings and the side-by-side setup.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "app/gui/store/store_types.h"

namespace folio::app {

struct SamplingPreset {
    QString name;
    QString description;
    SamplingSettings settings;
};

const QList<SamplingPreset>& samplingPresets();
SamplingPreset presetNamed(const QString& name);  // "Balanced" when unknown

class SamplingPresetModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
public:
    enum Role { NameRole = Qt::UserRole + 1, DescriptionRole };
    using QAbstractListModel::QAbstractListModel;
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
};

}  // namespace folio::app
