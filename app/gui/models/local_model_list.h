#pragma once
// The Library tab: every local model (the hub cache's snapshots, whoever downloaded them, and the
// folders the app remembers) with family, parameters, format, size on disk and whether it fits,
// from engine/hub's library and estimate. Scanning runs on a worker thread.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include <vector>

#include "app/gui/models/background_task.h"
#include "engine/hub/local_models.h"

namespace folio::app {

class HubAccount;
class ModelFitter;
class ModelLibrary;

class LocalModelListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(bool scanning READ scanning NOTIFY scanningChanged)
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)
public:
    enum Role {
        NameRole = Qt::UserRole + 1,
        PathRole,
        SourceRole,      // "hub" or "folder"
        DetailRole,      // "main · commit 1a2b3c4d5e6f" or the folder path
        FactsRole,       // "Llama · 7.2B · AWQ 4-bit g128 · 4.2 GB"
        FitsRole,        // "yes", "no", "unknown"
        FitTextRole,
        ProblemRole,     // why Folio cannot run it ("" when it can)
        PartialTextRole, // "1.2 GB of an unfinished download"
    };
    Q_ENUM(Role)

    LocalModelListModel(HubAccount* account, ModelLibrary* library, ModelFitter* fitter, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return int(models_.size()); }
    bool scanning() const { return scanning_; }
    QString error() const { return error_; }

    Q_INVOKABLE void refresh();
    // A cache snapshot leaves the cache (blobs another snapshot uses stay); a folder leaves the list
    // (its files are not touched).
    Q_INVOKABLE void remove(int row);

signals:
    void countChanged();
    void scanningChanged();
    void errorChanged();
    void scanned();  // a refresh finished (tests wait for it)

private:
    void setModels(std::vector<hub::LocalModel> models);

    HubAccount* account_;
    ModelLibrary* library_;
    ModelFitter* fitter_;
    std::vector<hub::LocalModel> models_;
    bool scanning_ = false, again_ = false;
    QString error_;
    BackgroundTasks tasks_{this};
};

}  // namespace folio::app
