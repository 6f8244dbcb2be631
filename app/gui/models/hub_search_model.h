#pragma once
// Hub search on the Download page: a name, a format Folio runs (AWQ, FP8, safetensors) and a size
// limit, answered by the Hub's model search on a worker thread. Search results only carry the weights'
// size, so "fits" compares the weights alone with the usable memory.
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include <vector>

#include "app/gui/models/background_task.h"
#include "engine/hub/hub_api.h"

namespace folio::app {

class HubAccount;
class ModelFitter;

class HubSearchModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)
    Q_PROPERTY(QString error READ error NOTIFY finished)
    Q_PROPERTY(int count READ count NOTIFY finished)
    Q_PROPERTY(QStringList formats READ formats CONSTANT)
public:
    enum Role {
        RepoRole = Qt::UserRole + 1,
        FactsRole,    // "AWQ · 5.6 GB · 120K downloads · gated"
        FitsRole,     // "yes", "no", "unknown"
        FitTextRole,
        GatedRole,
    };
    Q_ENUM(Role)

    HubSearchModel(HubAccount* account, ModelFitter* fitter, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    bool busy() const { return busy_; }
    QString error() const { return error_; }
    int count() const { return int(hits_.size()); }
    QStringList formats() const { return {tr("Any format"), QStringLiteral("AWQ"), QStringLiteral("FP8"), QStringLiteral("safetensors")}; }

    // `format`: an entry of formats(); `maxGigabytes` 0: any size.
    Q_INVOKABLE void search(const QString& text, const QString& format, double maxGigabytes);

signals:
    void busyChanged();
    void finished();

private:
    struct Answer {
        std::vector<hub::SearchHit> hits;
        QString error;
        int number = 0;
    };
    void apply(Answer answer);

    HubAccount* account_;
    ModelFitter* fitter_;
    std::vector<hub::SearchHit> hits_;
    bool busy_ = false;
    QString error_;
    int searches_ = 0;
    BackgroundTasks tasks_{this};
};

}  // namespace folio::app
