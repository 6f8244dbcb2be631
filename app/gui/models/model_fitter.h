#pragma once
// "Will it fit?" for the Models page: the memory of the device the engine would use (read on a
// worker thread: reading a GPU starts its driver), the context length a person chose, and the one
// estimate function of engine/hub applied to any model summary.
#include <QObject>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

#include "app/gui/models/background_task.h"
#include "engine/hub/fit_estimate.h"

namespace folio::app {

class ModelFitter : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString deviceText READ deviceText NOTIFY changed)
    Q_PROPERTY(bool ready READ ready NOTIFY changed)
    // Tokens per conversation the estimates are for; 0: each model's full context.
    Q_PROPERTY(int context READ context WRITE setContext NOTIFY changed)
    Q_PROPERTY(QVariantList contextChoices READ contextChoices CONSTANT)
public:
    explicit ModelFitter(QObject* parent = nullptr);
    ~ModelFitter() override;

    QString deviceText() const;
    bool ready() const { return ready_; }
    int context() const { return context_; }
    void setContext(int tokens);
    QVariantList contextChoices() const;

    // Reads the device's memory again ("auto", "cpu", "cuda"), in the background.
    Q_INVOKABLE void probe(const QString& backend);
    // For tests and for memory read elsewhere.
    void setBudget(const hub::MemoryBudget& budget);
    // Memory the loaded model holds now (loading another releases it).
    void setOursInUse(quint64 bytes);

    hub::FitEstimate estimate(const hub::ModelSummary& model) const;
    const hub::MemoryBudget& budget() const { return budget_; }

signals:
    void changed();

private:
    hub::MemoryBudget budget_;
    quint64 rawTotal_ = 0, rawFree_ = 0, oursInUse_ = 0;
    bool ready_ = false;
    int context_ = 8192;
    int probes_ = 0;  // the latest probe's number; older answers are dropped
    BackgroundTasks tasks_{this};
};

}  // namespace folio::app
