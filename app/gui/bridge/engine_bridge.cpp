#include "app/gui/bridge/engine_bridge.h"

#include "app/gui/bridge/engine_worker.h"

namespace folio::app {

EngineBridge::EngineBridge(QObject* parent) : ReplySource(parent) {
    qRegisterMetaType<GenerationRequest>();
    qRegisterMetaType<GenerationEnd>();
    qRegisterMetaType<ModelInfo>();
    qRegisterMetaType<folio::EngineStats>();
    qRegisterMetaType<ServingStatus>();
    thread_.setObjectName("folio-engine-bridge");
    worker_ = new EngineWorker;
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);

    // Every connection across the two threads is queued, explicitly.
    constexpr auto Q = Qt::QueuedConnection;
    connect(this, &EngineBridge::requestLoad, worker_, &EngineWorker::loadModel, Q);
    connect(this, &EngineBridge::requestSubmit, worker_, &EngineWorker::submit, Q);
    connect(this, &EngineBridge::requestConnectRemote, worker_, &EngineWorker::connectRemote, Q);
    connect(this, &EngineBridge::requestCancel, worker_, &EngineWorker::cancel, Q);
    connect(this, &EngineBridge::requestStatsInterval, worker_, &EngineWorker::setStatsInterval, Q);
    connect(this, &EngineBridge::requestStartServing, worker_, &EngineWorker::startServing, Q);
    connect(this, &EngineBridge::requestStopServing, worker_, &EngineWorker::stopServing, Q);
    connect(worker_, &EngineWorker::servingChanged, this, &EngineBridge::servingChanged, Q);
    connect(worker_, &EngineWorker::loadProgress, this,
            [this](const QString& phase, qint64 done, qint64 total, const QString& unit) {
                loadPhase_ = phase;
                loadProgress_ = total > 0 ? double(done) / double(total) : 0.0;
                loadDetail_ = total > 0 ? QStringLiteral("%1 / %2 %3").arg(done).arg(total).arg(unit).trimmed() : QString();
                emit loadProgressChanged();
            }, Q);
    connect(worker_, &EngineWorker::modelLoaded, this, &EngineBridge::onLoaded, Q);
    connect(worker_, &EngineWorker::loadFailed, this, &EngineBridge::onLoadFailed, Q);
    connect(worker_, &EngineWorker::delta, this, &ReplySource::delta, Q);
    connect(worker_, &EngineWorker::finished, this, &ReplySource::finished, Q);
    connect(worker_, &EngineWorker::statsUpdated, this, &EngineBridge::statsUpdated, Q);
    connect(worker_, &EngineWorker::apiRequestsChanged, this, [this](int n) {
        apiRequests_ = n;
        emit apiRequestsInFlightChanged();
    }, Q);
    thread_.start();
}

EngineBridge::~EngineBridge() {
    // The engine must be destroyed on the thread that owns it; the local server lets go of it first.
    QMetaObject::invokeMethod(worker_, &EngineWorker::stopServing, Qt::BlockingQueuedConnection);
    QMetaObject::invokeMethod(worker_, &EngineWorker::shutdown, Qt::BlockingQueuedConnection);
    thread_.quit();
    thread_.wait();
}

void EngineBridge::loadModel(const QString& spec, const QString& backend, const QString& quantization, const QString& kvCacheDtype) {
    if (state_ == State::Loading) return;
    state_ = State::Loading;
    loadingSpec_ = spec;
    lastError_.clear();
    loadProgress_ = 0;
    loadPhase_ = tr("starting");
    loadDetail_.clear();
    emit loadProgressChanged();
    emit stateChanged();
    emit requestLoad(spec, backend, quantization, kvCacheDtype);
}

void EngineBridge::connectRemote(const QString& endpoint, const QString& apiKey, const QString& model) {
    if (state_ == State::Loading) return;
    state_ = State::Loading;
    loadingSpec_ = QStringLiteral("remote:") + endpoint;
    lastError_.clear();
    loadProgress_ = 0;
    loadPhase_ = tr("connecting");
    loadDetail_.clear();
    emit loadProgressChanged();
    emit stateChanged();
    emit requestConnectRemote(endpoint, apiKey, model);
}

quint64 EngineBridge::submit(GenerationRequest request) {
    request.ticket = nextTicket_++;
    emit requestSubmit(request);
    return request.ticket;
}

void EngineBridge::cancel(quint64 ticket) { emit requestCancel(ticket); }

void EngineBridge::setStatsInterval(int ms) { emit requestStatsInterval(ms); }

void EngineBridge::onLoaded(const ModelInfo& info) {
    info_ = info;
    lastError_.clear();
    failedSpec_.clear();
    state_ = State::Ready;
    loadProgress_ = 1.0;
    loadPhase_.clear();
    loadDetail_.clear();
    emit loadProgressChanged();
    loadingSpec_.clear();
    emit stateChanged();
    emit modelReady(info);
}

void EngineBridge::onLoadFailed(const QString& spec, const QString& message, bool keptModel) {
    lastError_ = message;
    failedSpec_ = spec;
    if (keptModel) {
        // The model loaded before is still there and in use: Ready, with the error beside it.
        state_ = State::Ready;
        loadingSpec_.clear();
        loadProgress_ = 1.0;
        loadPhase_.clear();
        loadDetail_.clear();
        emit loadProgressChanged();
    } else {
        info_ = {};
        state_ = State::Failed;
        loadingSpec_ = spec;
    }
    emit stateChanged();
}

QString EngineBridge::switchWarning() const {
    if (apiRequests_ <= 0) return {};
    const QString what = apiRequests_ == 1 ? tr("1 API request") : tr("%1 API requests").arg(apiRequests_);
    return tr("%1 in progress will end: their clients get an error saying the model was switched.").arg(what);
}

}  // namespace folio::app
