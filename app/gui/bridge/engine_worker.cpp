#include "app/gui/bridge/engine_worker.h"

#include <QThread>
#include <cmath>
#include <spdlog/spdlog.h>

#include "app/gui/bridge/engine_request.h"
#include "app/gui/serve/local_api_server.h"
#include "engine/backend/backend.h"
#include "engine/client/make_engine.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace folio::app {
namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

ModelInfo infoOf(const EngineModelInfo& m, const EngineStats& st) {
    ModelInfo info;
    info.spec = q(m.spec);
    info.name = q(m.name);
    info.quantization = q(m.quantization);
    info.architecture = q(m.architecture);
    info.backend = q(m.backend);
    info.device = q(m.device);
    info.contextLength = m.context_length;
    info.layers = m.layers;
    info.hiddenSize = m.hidden_size;
    info.kvBlocks = st.kv.blocks_total;
    info.blockSize = st.kv.block_size;
    info.templateThinks = m.template_thinks;
    return info;
}

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
    // The model is loaded here rather than by make_engine: the local API server checks prompts
    // against it.
    std::shared_ptr<const Model> model;
    std::unique_ptr<EngineClient> client;
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
        client = make_local_engine(model, options);
    } catch (const std::exception& e) {
        spdlog::error("loading {} failed: {}", spec.toStdString(), e.what());
        emit loadFailed(spec, QString::fromStdString(e.what()), client_ != nullptr);
        return;
    }
    install(std::move(client), std::move(model));
}

void EngineWorker::connectRemote(const QString& endpoint, const QString& apiKey, const QString& model) {
    const QString spec = QStringLiteral("remote:") + endpoint;
    std::unique_ptr<EngineClient> client;
    try {
        RemoteEngineSpec options;
        options.endpoint = endpoint.trimmed().toStdString();
        options.api_key = apiKey.toStdString();
        options.model = model.toStdString();
        client = make_engine(options);
    } catch (const std::exception& e) {
        spdlog::error("connecting to {} failed: {}", endpoint.toStdString(), e.what());
        emit loadFailed(spec, QString::fromStdString(e.what()), client_ != nullptr);
        return;
    }
    install(std::move(client), nullptr);
}

void EngineWorker::install(std::unique_ptr<EngineClient> client, std::shared_ptr<const Model> model) {
    endEngine(Ending::Switched);
    ++engineGeneration_;
    client_ = std::move(client);
    model_ = std::move(model);
    // A server's model is not lent on: the API answers 503 while chats go to a server.
    if (api_ && model_) api_->attach(model_, *client_);
    const EngineStats st = client_->stats();
    const EngineModelInfo& m = client_->model_info();
    // Never the key in the log: describe() names the model and the URL only.
    spdlog::info("model {} ready: {} on {} ({} KV blocks)", m.name, m.quantization, client_->describe(), st.kv.blocks_total);
    emit modelLoaded(infoOf(m, st));
    if (!m.remote) {
        statsTimer_->start();
        pollStats();
    }
}

void EngineWorker::unloadModel() { endEngine(Ending::Unloaded); }

void EngineWorker::submit(const GenerationRequest& r) {
    const int n = std::max(1, r.n);
    if (!client_) {
        for (int i = 0; i < n; ++i) {
            emit finished(GenerationEnd{r.ticket, i, true, tr("No model is loaded: choose one in Models first."), {}});
        }
        return;
    }
    // Engine thread -> this thread, by queued call. The sink is called only after submit has
    // returned here (the call is queued behind this one), so the ticket is known by then.
    const quint64 generation = engineGeneration_;
    const quint64 ticket = r.ticket;
    EventSink sink = [this, generation, ticket](const Event& e) {
        QMetaObject::invokeMethod(this, [this, generation, ticket, e] { onEngineEvent(generation, ticket, e); },
                                  Qt::QueuedConnection);
    };
    Ticket t;
    t.first = client_->submit(toEngineRequest(r), std::move(sink));  // drafts: reply i is first + i
    t.ended = QList<bool>(n, false);
    tickets_.insert(ticket, t);
}

void EngineWorker::cancel(quint64 ticket) {
    const auto it = tickets_.constFind(ticket);
    if (it != tickets_.constEnd() && client_) client_->cancel(it->first);  // the first id: all its replies end
}

void EngineWorker::setStatsInterval(int ms) { statsTimer_->setInterval(ms); }

void EngineWorker::shutdown() { endEngine(Ending::Unloaded); }

void EngineWorker::endEngine(Ending why) {
    statsTimer_->stop();
    const bool switched = why == Ending::Switched;
    // Replies still running end as errors the GUI can show.
    const QString message = switched ? tr("The model was switched.") : tr("The model was unloaded.");
    for (auto it = tickets_.cbegin(); it != tickets_.cend(); ++it) {
        for (int draft = 0; draft < it->ended.size(); ++draft) {
            if (!it->ended[draft]) emit finished(GenerationEnd{it.key(), draft, true, message, {}});
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
    client_.reset();  // a server's: cancels its requests and waits for their threads
    model_.reset();
    pending_.clear();
    pendingOrder_.clear();
    tickets_.clear();
}

void EngineWorker::startServing(int port, const QString& apiKey) {
    if (!api_) api_ = std::make_unique<LocalApiServer>();
    ServingStatus status;
    // Without a key only this machine may connect; with one, the others too (they must send it).
    status.host = apiKey.isEmpty() ? QStringLiteral("127.0.0.1") : QStringLiteral("0.0.0.0");
    try {
        status.port = api_->start(status.host.toStdString(), port, apiKey.toStdString(), model_ ? model_->name : std::string());
        status.listening = true;
        if (client_ && model_) api_->attach(model_, *client_);
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

void EngineWorker::onEngineEvent(quint64 generation, quint64 ticket, const Event& e) {
    if (generation != engineGeneration_) return;
    const auto t = tickets_.find(ticket);
    if (t == tickets_.end()) return;
    const int draft = int(e.id - t->first);
    if (draft < 0 || draft >= t->ended.size() || t->ended[draft]) return;
    // Token events carry the text they complete; a Finished/Error event may carry held-back text
    // too (the tail of a possible stop string that was not one), which goes out before the end.
    if (!e.text.empty() || e.kind == Event::Kind::Token) {
        auto p = pending_.find(e.id);
        if (p == pending_.end()) {
            p = pending_.insert(e.id, Pending{ticket, draft, {}, 0});
            pendingOrder_ << e.id;
        }
        p->text += QString::fromStdString(e.text);
        if (e.kind == Event::Kind::Token) {
            p->tokens += 1;
            if (!flushTimer_->isActive()) flushTimer_->start();
            return;
        }
    }
    flushReply(e.id);
    GenerationEnd end;
    end.ticket = ticket;
    end.draft = draft;
    end.error = e.kind == Event::Kind::Error || e.reason == FinishReason::Error;
    end.message = q(e.message);
    end.stats.timings = e.timings;
    end.stats.finishReason = QString::fromLatin1(finish_reason_name(e.reason));
    if (end.error) spdlog::warn("generation failed: {}", e.message);
    t->ended[draft] = true;
    if (!t->ended.contains(false)) tickets_.erase(t);
    emit finished(end);
}

void EngineWorker::flushReply(quint64 requestId) {
    const auto p = pending_.constFind(requestId);
    if (p == pending_.constEnd()) return;
    emit delta(p->ticket, p->text, p->tokens, p->draft);
    pending_.remove(requestId);
    pendingOrder_.removeOne(requestId);
}

void EngineWorker::flushDeltas() {
    for (quint64 id : std::as_const(pendingOrder_)) {
        const Pending& p = pending_[id];
        emit delta(p.ticket, p.text, p.tokens, p.draft);
    }
    pending_.clear();
    pendingOrder_.clear();
}

void EngineWorker::pollStats() {
    if (client_) emit statsUpdated(client_->stats());
    reportApiRequests(api_ ? api_->requestsInFlight() : 0);
}

void EngineWorker::reportApiRequests(int n) {
    if (n == apiRequests_) return;
    apiRequests_ = n;
    emit apiRequestsChanged(n);
}

}  // namespace folio::app
