#pragma once
// What the monitor panel shows: the engine's latest EngineStats as it came (QML reads it through
// `stats`, a gadget over the engine struct), 60-second series for the plots, and the
// per-conversation breakdown. Fed by EngineBridge::statsUpdated (GUI thread). When chats go to a
// remote server, its Prometheus /metrics (vLLM's or folio-server's) is read at the same rate instead:
// `serverLoad` holds what it reports, the decode/prefill/batch plots follow its token throughput and
// running requests, and `serverStatus` says once what keeps it from being read.
#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "app/gui/monitor/engine_stats_view.h"
#include "app/gui/monitor/sequence_stats_model.h"
#include "app/gui/monitor/server_load_view.h"
#include "app/gui/monitor/server_metrics_poller.h"
#include "app/gui/monitor/time_series.h"
#include "app/gui/store/store_types.h"

namespace folio::app {

class MonitorModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(folio::app::EngineStatsView stats READ statsView NOTIFY updated)
    Q_PROPERTY(bool live READ live NOTIFY updated)
    Q_PROPERTY(bool gpu READ gpu NOTIFY updated)
    Q_PROPERTY(QString memoryLabel READ memoryLabel NOTIFY updated)
    Q_PROPERTY(qint64 updates READ updates NOTIFY updated)
    Q_PROPERTY(folio::app::TimeSeries* decodeSeries READ decodeSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* prefillSeries READ prefillSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* kvSeries READ kvSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* batchSeries READ batchSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* memorySeries READ memorySeries CONSTANT)
    Q_PROPERTY(folio::app::SequenceStatsModel* sequences READ sequences CONSTANT)
    Q_PROPERTY(bool watchingServer READ watchingServer NOTIFY updated)
    Q_PROPERTY(folio::app::ServerLoadView serverLoad READ serverLoad NOTIFY updated)
    Q_PROPERTY(QString serverStatus READ serverStatus NOTIFY updated)
public:
    // Samples per plot: 60 s at the bridge's 500 ms stats interval, which a server's /metrics is read at too.
    static constexpr int kSamples = 120;
    static constexpr int kIntervalMs = 500;

    explicit MonitorModel(std::function<QString(qint64)> titleOf, QObject* parent = nullptr);
    // A snapshot with no engine step since the previous one reads as idle: zero rates and batch.
    void apply(folio::EngineStats s);
    // A reply ended: its conversation stays in the per-conversation table with its final figures
    // (state "finished") until it runs again, so short replies can be read after they end.
    void recordFinished(qint64 conversationId, const ReplyStats& stats);
    // "812 MiB", "3.42 GiB": sizes for the cards.
    Q_INVOKABLE static QString formatBytes(double bytes);
    void reset();

    // Reads `endpoint`'s /metrics (the /v1 dropped) every `intervalMs` from now on; `apiKey` may be
    // empty. Replaces the figures shown.
    void watchServer(const QString& endpoint, const QString& apiKey, int intervalMs = kIntervalMs);
    void stopWatchingServer();
    // A reading of the watched server at `atMs` (steady clock): the poller's, or a test's.
    void applyServerLoad(const folio::app::ServerLoad& load, qint64 atMs);
    bool watchingServer() const { return watching_; }
    ServerLoadView serverLoad() const { return serverLoad_; }
    QString serverStatus() const { return serverStatus_; }
    const ServerMetricsPoller& poller() const { return poller_; }

    // The latest snapshot (its sequences are in sequences()).
    const folio::EngineStats& stats() const { return view_.stats(); }
    EngineStatsView statsView() const { return view_; }
    bool live() const { return updates_ > 0; }
    bool gpu() const { return stats().backend == "cuda"; }
    QString memoryLabel() const { return gpu() ? tr("VRAM") : tr("Process memory"); }
    qint64 updates() const { return updates_; }
    TimeSeries* decodeSeries() { return &decode_; }
    TimeSeries* prefillSeries() { return &prefill_; }
    TimeSeries* kvSeries() { return &kv_; }
    TimeSeries* batchSeries() { return &batch_; }
    TimeSeries* memorySeries() { return &memory_; }
    SequenceStatsModel* sequences() { return &sequences_; }

signals:
    void updated();

private:
    EngineStatsView view_;
    qint64 updates_ = 0;
    TimeSeries decode_{kSamples}, prefill_{kSamples}, kv_{kSamples}, batch_{kSamples}, memory_{kSamples};
    SequenceStatsModel sequences_;
    ServerMetricsPoller poller_;
    bool watching_ = false;
    ServerLoadView serverLoad_;
    qint64 serverReadAtMs_ = 0;
    QString serverStatus_;
};

}  // namespace folio::app
