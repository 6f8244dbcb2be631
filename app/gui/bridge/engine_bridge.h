#pragma once
// The GUI thread's handle on the engine: starts the worker thread, forwards requests to it and its
// results back, all by explicitly queued connections. Holds the model state the views show.
#include <QObject>
#include <QThread>
#include <QtQml/qqmlregistration.h>

#include "app/gui/bridge/bridge_types.h"
#include "app/gui/bridge/reply_source.h"

namespace folio::app {

class EngineWorker;

class EngineBridge : public ReplySource {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("owned by the app")
public:
    enum class State { NoModel, Loading, Ready, Failed };
    Q_ENUM(State)
    Q_PROPERTY(State state READ state NOTIFY stateChanged)
    // While loading: what the load is doing ("mapping weights"), how far through it (0..1) and the
    // count in words ("12 / 23 layers"; empty when the phase is not counted: show it as busy).
    Q_PROPERTY(double loadProgress READ loadProgress NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadPhase READ loadPhase NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadDetail READ loadDetail NOTIFY loadProgressChanged)
    Q_PROPERTY(QString loadingSpec READ loadingSpec NOTIFY stateChanged)
    // Why the last load failed (empty after a load that worked). A failed load keeps the model that
    // was loaded before: the state is then Ready again, and `lastError` names what went wrong.
    Q_PROPERTY(QString lastError READ lastError NOTIFY stateChanged)
    Q_PROPERTY(QString failedSpec READ failedSpec NOTIFY stateChanged)
    // API requests that "Serve on localhost" is answering now (each choice of one counts), and, when
    // there are any, the sentence to show before loading another model or unloading: those requests
    // will end (their clients get an error that says the model was switched).
    Q_PROPERTY(int apiRequestsInFlight READ apiRequestsInFlight NOTIFY apiRequestsInFlightChanged)
    Q_PROPERTY(QString switchWarning READ switchWarning NOTIFY apiRequestsInFlightChanged)
    Q_PROPERTY(QString modelName READ modelName NOTIFY stateChanged)
    Q_PROPERTY(QString modelSpec READ modelSpec NOTIFY stateChanged)
    Q_PROPERTY(QString quantization READ quantization NOTIFY stateChanged)
    Q_PROPERTY(QString architecture READ architecture NOTIFY stateChanged)
    Q_PROPERTY(QString backendName READ backendName NOTIFY stateChanged)
    Q_PROPERTY(QString device READ device NOTIFY stateChanged)
    Q_PROPERTY(int contextLength READ contextLength NOTIFY stateChanged)
    Q_PROPERTY(bool templateThinks READ templateThinks NOTIFY stateChanged)

    explicit EngineBridge(QObject* parent = nullptr);
    ~EngineBridge() override;  // stops the worker thread (the engine is destroyed on it)

    State state() const { return state_; }
    double loadProgress() const { return loadProgress_; }
    QString loadPhase() const { return loadPhase_; }
    QString loadDetail() const { return loadDetail_; }
    QString loadingSpec() const { return loadingSpec_; }
    QString lastError() const { return lastError_; }
    QString failedSpec() const { return failedSpec_; }
    int apiRequestsInFlight() const { return apiRequests_; }
    QString switchWarning() const;
    QString modelName() const { return info_.name; }
    QString modelSpec() const { return info_.spec; }
    QString quantization() const { return info_.quantization; }
    QString architecture() const { return info_.architecture; }
    QString backendName() const { return info_.backend; }
    QString device() const { return info_.device; }
    int contextLength() const { return info_.contextLength; }
    bool templateThinks() const { return info_.templateThinks; }
    const ModelInfo& modelInfo() const { return info_; }
    QThread* workerThread() { return &thread_; }

    // quantization: "none" or "fp8" (FP8 weights at load); kvCacheDtype: "auto", "fp8", "fp8_e5m2".
    Q_INVOKABLE void loadModel(const QString& spec, const QString& backend = QStringLiteral("auto"),
                               const QString& quantization = QStringLiteral("none"), const QString& kvCacheDtype = QStringLiteral("auto"));
    // Chats through an OpenAI-compatible server instead of a local model (state Loading, then Ready
    // with backendName "remote", or Failed with the reason).
    void connectRemote(const QString& endpoint, const QString& apiKey, const QString& model);
    quint64 submit(GenerationRequest request) override;
    void cancel(quint64 ticket) override;
    void setStatsInterval(int ms);
    // "Serve on localhost" (see LocalServer): the answer comes as servingChanged.
    void startServing(int port, const QString& apiKey) { emit requestStartServing(port, apiKey); }
    void stopServing() { emit requestStopServing(); }

signals:
    void stateChanged();
    void loadProgressChanged();
    void apiRequestsInFlightChanged();
    void modelReady(const folio::app::ModelInfo& info);
    void statsUpdated(const folio::EngineStats& stats);
    void servingChanged(const folio::app::ServingStatus& status);

    // To the worker (queued).
    void requestLoad(const QString& spec, const QString& backend, const QString& quantization, const QString& kvCacheDtype);
    void requestSubmit(const folio::app::GenerationRequest& request);
    void requestConnectRemote(const QString& endpoint, const QString& apiKey, const QString& model);
    void requestCancel(quint64 ticket);
    void requestStatsInterval(int ms);
    void requestStartServing(int port, const QString& apiKey);
    void requestStopServing();

private:
    void onLoaded(const ModelInfo& info);
    void onLoadFailed(const QString& spec, const QString& message, bool keptModel);

    QThread thread_;
    EngineWorker* worker_ = nullptr;
    State state_ = State::NoModel;
    double loadProgress_ = 0;
    QString loadPhase_;
    QString loadDetail_;
    QString loadingSpec_;
    QString lastError_;
    QString failedSpec_;
    int apiRequests_ = 0;
    ModelInfo info_;
    quint64 nextTicket_ = 1;
};

}  // namespace folio::app
