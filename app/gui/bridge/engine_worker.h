#pragma once
// Lives on the bridge's own QThread and owns the engine: one EngineClient (a model run here, or a
// server), built by make_engine. Everything it receives comes by queued call from the GUI thread;
// everything it reports goes back by queued signal. Each request's sink (called on a thread of the
// engine's) only posts its events into this object's thread, so the ticket map is touched by one
// thread alone.
#include <QHash>
#include <QList>
#include <QObject>
#include <QTimer>
#include <memory>

#include "app/gui/bridge/bridge_types.h"

namespace folio {
class EngineClient;
struct Event;
struct Model;
}  // namespace folio

namespace folio::app {

class LocalApiServer;

class EngineWorker : public QObject {
    Q_OBJECT
public:
    EngineWorker();
    ~EngineWorker() override;

public slots:
    // Loads `spec` (a folder or dummy:NAME) and builds the engine; progress and the result come back
    // by signal. backend: "auto", "cpu" or "cuda". The engine in use stays until the new one is
    // built: a failed load leaves it loaded and in use (loadFailed says so).
    // quantization: "none" or "fp8"; kvCacheDtype: "auto", "fp8", "fp8_e4m3", "fp8_e5m2".
    void loadModel(const QString& spec, const QString& backend, const QString& quantization, const QString& kvCacheDtype);
    void unloadModel();
    // Chats go to an OpenAI-compatible server instead (engine/remote): replaces the local engine once
    // the server has answered. The result comes back as modelLoaded (backend "remote") or loadFailed,
    // like a load.
    void connectRemote(const QString& endpoint, const QString& apiKey, const QString& model);
    void submit(const folio::app::GenerationRequest& request);
    void cancel(quint64 ticket);
    void setStatsInterval(int ms);
    void shutdown();  // drops the engine; called before the thread stops
    // "Serve on localhost": the OpenAI API over this worker's engine (127.0.0.1 without a key, every
    // address with one). The state comes back as servingChanged.
    void startServing(int port, const QString& apiKey);
    void stopServing();

signals:
    // The load's current phase ("mapping weights") and how far through it; total 0: not counted.
    void loadProgress(const QString& phase, qint64 done, qint64 total, const QString& unit);
    void modelLoaded(const folio::app::ModelInfo& info);
    // `keptModel`: the model loaded before is still loaded and in use.
    void loadFailed(const QString& spec, const QString& message, bool keptModel);
    void delta(quint64 ticket, const QString& text, int tokens, int draft);
    void finished(const folio::app::GenerationEnd& end);
    void statsUpdated(const folio::EngineStats& stats);
    void servingChanged(const folio::app::ServingStatus& status);
    // API requests (their choices) the local server is answering; polled with the stats.
    void apiRequestsChanged(int inFlight);

private:
    // Why the engine goes: its chats end with an error and its API requests with one that says so.
    enum class Ending { Unloaded, Switched };
    void endEngine(Ending why);
    // Replaces the engine in use (ended as switched) with `client`; `model`: a local one's, for the
    // API server's prompt checks (null for a server).
    void install(std::unique_ptr<folio::EngineClient> client, std::shared_ptr<const folio::Model> model);
    void onEngineEvent(quint64 generation, quint64 ticket, const folio::Event& event);
    void pollStats();
    void reportApiRequests(int n);
    void flushDeltas();
    void flushReply(quint64 requestId);

    std::unique_ptr<LocalApiServer> api_;  // while serving
    std::shared_ptr<const folio::Model> model_;           // a local engine's model (null: remote)
    std::unique_ptr<folio::EngineClient> client_;         // null: no model
    quint64 engineGeneration_ = 0;  // bumps per engine so late events of an old one are dropped
    // One GenerationRequest: one engine request, its n replies (drafts) ids first .. first + n - 1.
    struct Ticket {
        quint64 first = 0;
        QList<bool> ended;  // per draft
    };
    QHash<quint64, Ticket> tickets_;
    QTimer* statsTimer_ = nullptr;
    // Tokens are coalesced for up to one frame (16 ms): the GUI re-lays out a reply once per chunk,
    // not once per token, however fast a small model decodes. Order is kept per reply.
    struct Pending {
        quint64 ticket = 0;
        int draft = 0;
        QString text;
        int tokens = 0;
    };
    QHash<quint64, Pending> pending_;  // by engine RequestId
    QList<quint64> pendingOrder_;
    QTimer* flushTimer_ = nullptr;
    int apiRequests_ = 0;  // last reported
};

}  // namespace folio::app
