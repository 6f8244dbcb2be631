#include "app/gui/bridge/engine_worker.h"

#include <QThread>
#include <cmath>
#include <spdlog/spdlog.h>

#include "app/gui/bridge/engine_request.h"
#include "app/gui/serve/local_api_server.h"
#include "app/server/event_router.h"
#include "engine/remote/remote_engine.h"
#include "engine/backends/backend_factory.h"
#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/frontdoor/engine.h"

namespace folio::app {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

EngineWorker::EngineWorker() {
    statsTimer_ = new QTimer(this);  // a child: moves to the worker thread with this object
    statsTimer_->setInterval(500);
    connect(statsTimer_, &QTimer::timeout, this, &EngineWorker::pollStats);
    flushTimer_ = new QTimer(this);
    flushTimer_->setSingleShot(true);
    flushTimer_->setInterval(16);
    connect(flushTimer_, &QTimer::timeout, this, &EngineWorker::flushDeltas);
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::loadModel(const QString& spec, const QString& backend, const QString& quantization, const QString& kvCacheDtype) {
    // The new engine is built beside the one in use, which goes only once the new one is ready: a
    // load that fails (a corrupt file) leaves the working model loaded, serving, and its chats going.
    std::shared_ptr<const Model> model;
    std::unique_ptr<Engine> engine;
    try {
        EngineOptions options;
        options.backend.kind = parse_backend_kind(backend.toStdString());
        // The loader and then the backend report from this thread, one after the other; forward a
        // new phase at once and a phase's count in visible steps (0.5 %) only.
        std::string lastPhase;
        int lastPermille = -10;
        const LoadProgressFn forward = [this, &lastPhase, &lastPermille](const LoadProgress& p) {
            const int pm = int(std::lround(p.fraction() * 1000));
            if (p.phase == lastPhase && pm - lastPermille < 5 && !(p.total > 0 && p.done == p.total)) return;
            if (p.phase != lastPhase) spdlog::debug("loading: {}", p.phase);
            lastPhase = p.phase;
            lastPermille = pm;
            emit loadProgress(QString::fromUtf8(p.phase), p.done, p.total, QString::fromUtf8(p.unit));
        };
        options.kv_cache_dtype = parse_kv_cache_dtype(kvCacheDtype.toStdString());
        LoadOptions load;
        load.quantization = quantization.toStdString();
        load.progress = forward;
        spdlog::info("loading model {} (backend {}, weights {}, KV cache {})", spec.toStdString(), backend.toStdString(),
                     quantization.toStdString(), kvCacheDtype.toStdString());
        model = load_model(spec.toStdString(), load);
        options.backend.progress = forward;
        engine = std::make_unique<Engine>(model, make_backend(*model, backend_options_for(options)), options);
    } catch (const std::exception& e) {
        spdlog::error("loading {} failed: {}", spec.toStdString(), e.what());
        emit loadFailed(spec, QString::fromStdString(e.what()), hasEngine());
        return;
    }
    endEngine(Ending::Switched);
    {
        ++engineGeneration_;
        // The router takes the events of API requests (when serving); the GUI's own requests go to
        // their own sinks (submit).
        router_ = std::make_unique<server::EventRouter>(*engine);
        engine_ = std::move(engine);
        model_ = model;
        if (api_) api_->attach(model_, *engine_, *router_);
        const EngineStats st = engine_->stats();
        ModelInfo info;
        info.spec = q(model->spec);
        info.name = q(model->name);
        info.quantization = q(model->quantization_name());
        info.architecture = q(model->config.architecture);
        info.backend = q(st.backend);
        info.device = q(st.device_name);
        info.contextLength = model->context_length();
        info.layers = model->config.num_layers;
        info.hiddenSize = model->config.hidden_size;
        info.kvBlocks = st.kv.blocks_total;
        info.blockSize = st.kv.block_size;
        const std::optional<std::string>& tpl = model->tokenizer_config.chat_template;
        info.templateThinks = tpl && tpl->find("enable_thinking") != std::string::npos;
        spdlog::info("model {} ready: {} on {} ({} KV blocks)", model->name, model->quantization_name(),
                     st.device_name, st.kv.blocks_total);
        emit modelLoaded(info);
        statsTimer_->start();
        pollStats();
    }
}

void EngineWorker::unloadModel() { endEngine(Ending::Unloaded); }

bool EngineWorker::hasEngine() const { return engine_ || remote_; }

void EngineWorker::connectRemote(const QString& endpoint, const QString& apiKey, const QString& model) {
    const QString spec = QStringLiteral("remote:") + endpoint;
    try {
        remote::RemoteOptions options;
        options.endpoint = endpoint.trimmed().toStdString();
        options.api_key = apiKey.toStdString();
        options.model = model.toStdString();
        // Never the key in the log: describe() names the model and the URL only.
        auto remote = std::make_unique<remote::RemoteEngine>(options);
        endEngine(Ending::Switched);  // only once the server answered: a failed connect keeps the model
        ++engineGeneration_;
        remote_ = std::move(remote);
        spdlog::info("chats go to {}", remote_->describe());
        ModelInfo info;
        info.spec = spec;
        info.name = q(remote_->model());
        info.architecture = QStringLiteral("remote");
        info.quantization = QStringLiteral("as served");
        info.backend = QStringLiteral("remote");
        info.device = q(remote_->base_url());
        emit modelLoaded(info);
    } catch (const std::exception& e) {
        spdlog::error("connecting to {} failed: {}", endpoint.toStdString(), e.what());
        emit loadFailed(spec, QString::fromStdString(e.what()), hasEngine());
    }
}

void EngineWorker::track(quint64 firstId, const GenerationRequest& r) {
    const int n = std::max(1, r.n);
    for (int i = 0; i < n; ++i) replyOfRequest_.insert(firstId + quint64(i), Reply{r.ticket, i});
    requestOfTicket_.insert(r.ticket, firstId);
    repliesLeft_.insert(r.ticket, n);
}

void EngineWorker::submit(const GenerationRequest& r) {
    // Engine thread -> this thread, by queued call: the ticket map stays single-threaded.
    const quint64 generation = engineGeneration_;
    const EventSink sink = [this, generation](const Event& e) {
        QMetaObject::invokeMethod(this, [this, generation, e] { onEngineEvent(generation, e); }, Qt::QueuedConnection);
    };
    if (remote_) {  // drafts too: the API's n, reply i of the request arriving as id + i
        track(remote_->submit(toEngineRequest(r), sink), r);
        return;
    }
    if (!engine_) {
        for (int i = 0; i < std::max(1, r.n); ++i) {
            emit finished(GenerationEnd{r.ticket, i, true, tr("No model is loaded: choose one in Models first."), {}});
        }
        return;
    }
    track(engine_->submit(toEngineRequest(r), sink), r);
}

void EngineWorker::cancel(quint64 ticket) {
    const auto it = requestOfTicket_.constFind(ticket);
    if (it == requestOfTicket_.constEnd()) return;
    if (remote_) remote_->cancel(*it);
    if (engine_) engine_->cancel(*it);  // the first id: all its replies end
}

void EngineWorker::setStatsInterval(int ms) { statsTimer_->setInterval(ms); }

void EngineWorker::shutdown() { endEngine(Ending::Unloaded); }

void EngineWorker::endEngine(Ending why) {
    statsTimer_->stop();
    const bool switched = why == Ending::Switched;
    if (engine_ || remote_) {
        // Replies still running end as errors the GUI can show ("the model was unloaded").
        const QString message = switched ? tr("The model was switched.") : tr("The model was unloaded.");
        for (auto it = replyOfRequest_.cbegin(); it != replyOfRequest_.cend(); ++it) {
            emit finished(GenerationEnd{it->ticket, it->draft, true, message, {}});
        }
    }
    ++engineGeneration_;
    // The server lets go of the engine first: its requests end with an error that says why (never
    // finish_reason "cancelled"), and it answers 503 until the next engine.
    if (api_) {
        api_->detach(switched ? "the model was switched in the Folio app: send the request again"
                              : "the model was unloaded in the Folio app");
    }
    reportApiRequests(0);
    engine_.reset();
    router_.reset();
    model_.reset();
    remote_.reset();  // cancels its requests and waits for their threads
    pending_.clear();
    pendingOrder_.clear();
    replyOfRequest_.clear();
    requestOfTicket_.clear();
    repliesLeft_.clear();
}

void EngineWorker::startServing(int port, const QString& apiKey) {
    if (!api_) api_ = std::make_unique<LocalApiServer>();
    ServingStatus status;
    // Without a key only this machine may connect; with one, the others too (they must send it).
    status.host = apiKey.isEmpty() ? QStringLiteral("127.0.0.1") : QStringLiteral("0.0.0.0");
    try {
        status.port = api_->start(status.host.toStdString(), port, apiKey.toStdString(), model_ ? model_->name : std::string());
        status.listening = true;
        if (engine_) api_->attach(model_, *engine_, *router_);
    } catch (const std::exception& e) {
        spdlog::warn("{}", e.what());
        status.port = port;
        status.error = QString::fromStdString(e.what());
    }
    emit servingChanged(status);
}

void EngineWorker::stopServing() {
    reportApiRequests(0);
    if (api_) api_->stop();
    api_.reset();
    emit servingChanged(ServingStatus{});
}

void EngineWorker::onEngineEvent(quint64 generation, const Event& e) {
    if (generation != engineGeneration_) return;
    const auto it = replyOfRequest_.constFind(e.id);
    if (it == replyOfRequest_.constEnd()) return;
    const Reply reply = *it;
    // Token events carry the text they complete; a Finished/Error event may carry held-back text
    // too (the tail of a possible stop string that was not one), which goes out before the end.
    if (!e.text.empty() || e.kind == Event::Kind::Token) {
        auto p = pending_.find(e.id);
        if (p == pending_.end()) {
            p = pending_.insert(e.id, {});
            pendingOrder_ << e.id;
        }
        p->text += QString::fromStdString(e.text);
        if (e.kind == Event::Kind::Token) p->tokens += 1;
        if (e.kind == Event::Kind::Token) {
            if (!flushTimer_->isActive()) flushTimer_->start();
            return;
        }
    }
    flushReply(e.id);
    GenerationEnd end;
    end.ticket = reply.ticket;
    end.draft = reply.draft;
    end.error = e.kind == Event::Kind::Error || e.reason == FinishReason::Error;
    end.message = q(e.message);
    end.stats.timings = e.timings;
    end.stats.finishReason = QString::fromLatin1(finish_reason_name(e.reason));
    if (end.error) spdlog::warn("generation failed: {}", e.message);
    replyOfRequest_.remove(e.id);
    if (--repliesLeft_[reply.ticket] <= 0) {
        repliesLeft_.remove(reply.ticket);
        requestOfTicket_.remove(reply.ticket);
    }
    emit finished(end);
}

void EngineWorker::flushReply(quint64 requestId) {
    const auto p = pending_.constFind(requestId);
    if (p == pending_.constEnd()) return;
    const Reply r = replyOfRequest_.value(requestId);
    emit delta(r.ticket, p->text, p->tokens, r.draft);
    pending_.remove(requestId);
    pendingOrder_.removeOne(requestId);
}

void EngineWorker::flushDeltas() {
    for (quint64 id : std::as_const(pendingOrder_)) {
        const Pending& p = pending_[id];
        const Reply r = replyOfRequest_.value(id);
        emit delta(r.ticket, p.text, p.tokens, r.draft);
    }
    pending_.clear();
    pendingOrder_.clear();
}

void EngineWorker::pollStats() {
    if (engine_) emit statsUpdated(engine_->stats());
    reportApiRequests(api_ ? api_->requestsInFlight() : 0);
}

void EngineWorker::reportApiRequests(int n) {
    if (n == apiRequests_) return;
    apiRequests_ = n;
    emit apiRequestsChanged(n);
}

}  // namespace folio::app
