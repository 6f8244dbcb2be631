#include "app/gui/monitor/monitor_model.h"

#include "app/gui/chat/thread_guard.h"

namespace folio::app {

MonitorModel::MonitorModel(std::function<QString(qint64)> titleOf, QObject* parent)
    : QObject(parent), sequences_(std::move(titleOf)) {}

void MonitorModel::apply(const StatsSnapshot& s) {
    requireOwnThread(this, "MonitorModel::apply");
    // The engine refreshes its snapshot after each step, so an idle engine keeps reporting the
    // rates and batch of its last step. No step since the previous snapshot means nothing ran.
    const bool idle = updates_ > 0 && s.steps == s_.steps;
    s_ = s;
    if (idle) {
        s_.prefillTokS = s_.decodeTokS = 0;
        s_.batchSeqs = s_.batchTokens = 0;
    }
    ++updates_;
    decode_.append(s_.decodeTokS);
    prefill_.append(s_.prefillTokS);
    kv_.append(double(s_.blocksUsed));
    batch_.append(s_.batchSeqs);
    memory_.append(memoryUsedGiB());
    sequences_.setSequences(s.sequences);
    emit updated();
}

void MonitorModel::recordFinished(qint64 conversationId, const ReplyStats& st) {
    requireOwnThread(this, "MonitorModel::recordFinished");
    SequenceSnapshot s;
    s.tag = QStringLiteral("c%1").arg(conversationId);
    s.state = QStringLiteral("finished");
    s.promptTokens = st.promptTokens;
    s.generatedTokens = st.generatedTokens;
    s.prefillTokS = st.prefillTokS;
    s.decodeTokS = st.decodeTokS;
    sequences_.addFinished(s);
}

QString MonitorModel::formatBytes(double bytes) {
    const double mib = bytes / double(1 << 20);
    if (mib < 1) return QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 0);
    if (mib < 1024) return QStringLiteral("%1 MiB").arg(mib, 0, 'f', 0);
    return QStringLiteral("%1 GiB").arg(mib / 1024.0, 0, 'f', 2);
}

void MonitorModel::reset() {
    s_ = {};
    updates_ = 0;
    for (TimeSeries* t : {&decode_, &prefill_, &kv_, &batch_, &memory_}) t->clear();
    sequences_.clear();
    emit updated();
}

}  // namespace folio::app
