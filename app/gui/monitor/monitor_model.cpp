#include "app/gui/monitor/monitor_model.h"

#include "app/gui/chat/thread_guard.h"

namespace folio::app {

MonitorModel::MonitorModel(std::function<QString(qint64)> titleOf, QObject* parent)
    : QObject(parent), sequences_(std::move(titleOf)) {
    connect(&poller_, &ServerMetricsPoller::loadRead, this, &MonitorModel::applyServerLoad);
    connect(&poller_, &ServerMetricsPoller::problemChanged, this, [this](const QString& p) {
        serverStatus_ = p;
        emit updated();
    });
}

void MonitorModel::watchServer(const QString& endpoint, const QString& apiKey, int intervalMs) {
    requireOwnThread(this, "MonitorModel::watchServer");
    reset();
    watching_ = true;
    poller_.start(endpoint, apiKey, intervalMs);
    emit updated();
}

void MonitorModel::stopWatchingServer() {
    if (!watching_) return;
    poller_.stop();
    watching_ = false;
    serverLoad_ = ServerLoadView();
    serverStatus_.clear();
    emit updated();
}

void MonitorModel::applyServerLoad(const ServerLoad& load, qint64 atMs) {
    requireOwnThread(this, "MonitorModel::applyServerLoad");
    const ServerThroughput rates =
        serverLoad_.known() ? server_throughput(serverLoad_.load(), load, double(atMs - serverReadAtMs_) / 1000.0) : ServerThroughput{};
    serverLoad_ = ServerLoadView(load, rates);
    serverReadAtMs_ = atMs;
    ++updates_;
    decode_.append(rates.generation_tok_s.value_or(0));
    prefill_.append(rates.prompt_tok_s.value_or(0));
    batch_.append(load.running.value_or(0));
    emit updated();
}

void MonitorModel::apply(folio::EngineStats s) {
    requireOwnThread(this, "MonitorModel::apply");
    // The engine refreshes its snapshot after each step, so an idle engine keeps reporting the
    // rates and batch of its last step. No step since the previous snapshot means nothing ran.
    if (updates_ > 0 && s.steps == stats().steps) {
        s.prefill_tok_s = s.decode_tok_s = 0;
        s.last_batch_seqs = s.last_batch_tokens = 0;
    }
    ++updates_;
    decode_.append(s.decode_tok_s);
    prefill_.append(s.prefill_tok_s);
    kv_.append(double(s.kv.blocks_used));
    batch_.append(s.last_batch_seqs);
    memory_.append(double(s.memory.device_used) / (1 << 30));
    sequences_.setSequences(std::move(s.sequences));
    s.sequences.clear();
    view_ = EngineStatsView(std::make_shared<const folio::EngineStats>(std::move(s)));
    emit updated();
}

void MonitorModel::recordFinished(qint64 conversationId, const ReplyStats& st) {
    requireOwnThread(this, "MonitorModel::recordFinished");
    sequences_.addFinished(conversationId, st.timings);
}

QString MonitorModel::formatBytes(double bytes) {
    const double mib = bytes / double(1 << 20);
    if (mib < 1) return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 0);
    if (mib < 1024) return QStringLiteral("%1 MiB").arg(mib, 0, 'f', 0);
    return QStringLiteral("%1 GiB").arg(mib / 1024.0, 0, 'f', 2);
}

void MonitorModel::reset() {
    view_ = EngineStatsView();
    updates_ = 0;
    for (TimeSeries* t : {&decode_, &prefill_, &kv_, &batch_, &memory_}) t->clear();
    sequences_.clear();
    serverLoad_ = ServerLoadView();
    serverStatus_.clear();
    emit updated();
}

}  // namespace folio::app
