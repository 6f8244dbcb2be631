#pragma once
// What the monitor panel shows: the engine's latest stats snapshot as properties, 60-second series
// for the plots, and the per-conversation breakdown. Fed by EngineBridge::statsUpdated (GUI thread).
#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "app/gui/bridge/bridge_types.h"
#include "app/gui/monitor/sequence_stats_model.h"
#include "app/gui/monitor/time_series.h"

namespace folio::app {

class MonitorModel : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(bool live READ live NOTIFY updated)
    Q_PROPERTY(bool gpu READ gpu NOTIFY updated)
    Q_PROPERTY(QString memoryLabel READ memoryLabel NOTIFY updated)
    Q_PROPERTY(double memoryUsedGiB READ memoryUsedGiB NOTIFY updated)
    Q_PROPERTY(double memoryUsedBytes READ memoryUsedBytes NOTIFY updated)
    Q_PROPERTY(double memoryTotalBytes READ memoryTotalBytes NOTIFY updated)
    Q_PROPERTY(double weightsBytes READ weightsBytes NOTIFY updated)
    Q_PROPERTY(double kvBytes READ kvBytes NOTIFY updated)
    Q_PROPERTY(double memoryTotalGiB READ memoryTotalGiB NOTIFY updated)
    Q_PROPERTY(double weightsGiB READ weightsGiB NOTIFY updated)
    Q_PROPERTY(double kvGiB READ kvGiB NOTIFY updated)
    Q_PROPERTY(qint64 blocksTotal READ blocksTotal NOTIFY updated)
    Q_PROPERTY(qint64 blocksUsed READ blocksUsed NOTIFY updated)
    Q_PROPERTY(qint64 blocksCached READ blocksCached NOTIFY updated)
    Q_PROPERTY(qint64 blocksFree READ blocksFree NOTIFY updated)
    Q_PROPERTY(int blockSize READ blockSize NOTIFY updated)
    Q_PROPERTY(QString kvCacheDtype READ kvCacheDtype NOTIFY updated)  // "fp32", "fp16", "fp8_e4m3", "fp8_e5m2"
    Q_PROPERTY(double kvBytesPerBlock READ kvBytesPerBlock NOTIFY updated)
    Q_PROPERTY(double fragmentation READ fragmentation NOTIFY updated)
    Q_PROPERTY(double prefixHitRate READ prefixHitRate NOTIFY updated)
    Q_PROPERTY(qint64 prefixHitTokens READ prefixHitTokens NOTIFY updated)
    Q_PROPERTY(qint64 prefixLookupTokens READ prefixLookupTokens NOTIFY updated)
    Q_PROPERTY(qint64 peakBlocksUsed READ peakBlocksUsed NOTIFY updated)
    Q_PROPERTY(qint64 cowCopies READ cowCopies NOTIFY updated)
    Q_PROPERTY(qint64 evictions READ evictions NOTIFY updated)
    Q_PROPERTY(int running READ running NOTIFY updated)
    Q_PROPERTY(int queueDepth READ queueDepth NOTIFY updated)
    Q_PROPERTY(qint64 preemptions READ preemptions NOTIFY updated)
    Q_PROPERTY(int batchSize READ batchSize NOTIFY updated)
    Q_PROPERTY(int batchTokens READ batchTokens NOTIFY updated)
    Q_PROPERTY(double stepMs READ stepMs NOTIFY updated)
    Q_PROPERTY(double prefillTokS READ prefillTokS NOTIFY updated)
    Q_PROPERTY(double decodeTokS READ decodeTokS NOTIFY updated)
    Q_PROPERTY(qint64 totalGeneratedTokens READ totalGeneratedTokens NOTIFY updated)
    Q_PROPERTY(qint64 updates READ updates NOTIFY updated)
    Q_PROPERTY(QString backend READ backend NOTIFY updated)
    Q_PROPERTY(QString device READ device NOTIFY updated)
    Q_PROPERTY(folio::app::TimeSeries* decodeSeries READ decodeSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* prefillSeries READ prefillSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* kvSeries READ kvSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* batchSeries READ batchSeries CONSTANT)
    Q_PROPERTY(folio::app::TimeSeries* memorySeries READ memorySeries CONSTANT)
    Q_PROPERTY(folio::app::SequenceStatsModel* sequences READ sequences CONSTANT)
public:
    // Samples per plot: 60 s at the bridge's 500 ms stats interval.
    static constexpr int kSamples = 120;

    explicit MonitorModel(std::function<QString(qint64)> titleOf, QObject* parent = nullptr);
    // A snapshot with no engine step since the previous one reads as idle: zero rates and batch.
    void apply(const StatsSnapshot& s);
    // A reply ended: its conversation stays in the per-conversation table with its final figures
    // (state "finished") until it runs again, so short replies can be read after they end.
    void recordFinished(qint64 conversationId, const ReplyStats& stats);
    // "812 MiB", "3.42 GiB": sizes for the cards.
    Q_INVOKABLE static QString formatBytes(double bytes);
    void reset();
    const StatsSnapshot& snapshot() const { return s_; }

    bool live() const { return updates_ > 0; }
    bool gpu() const { return s_.backend == QLatin1String("cuda"); }
    QString memoryLabel() const { return gpu() ? tr("VRAM") : tr("Process memory"); }
    double memoryUsedGiB() const { return double(s_.memoryUsed) / (1 << 30); }
    double memoryUsedBytes() const { return double(s_.memoryUsed); }
    double memoryTotalBytes() const { return double(s_.memoryTotal); }
    double weightsBytes() const { return double(s_.weightsBytes); }
    double kvBytes() const { return double(s_.kvBytes); }
    double memoryTotalGiB() const { return double(s_.memoryTotal) / (1 << 30); }
    double weightsGiB() const { return double(s_.weightsBytes) / (1 << 30); }
    double kvGiB() const { return double(s_.kvBytes) / (1 << 30); }
    qint64 blocksTotal() const { return s_.blocksTotal; }
    qint64 blocksUsed() const { return s_.blocksUsed; }
    qint64 blocksCached() const { return s_.blocksCached; }
    qint64 blocksFree() const { return s_.blocksFree; }
    int blockSize() const { return s_.blockSize; }
    QString kvCacheDtype() const { return s_.kvCacheDtype; }
    double kvBytesPerBlock() const { return double(s_.kvBytesPerBlock); }
    double fragmentation() const { return s_.fragmentation; }
    double prefixHitRate() const { return s_.prefixHitRate; }
    qint64 prefixHitTokens() const { return s_.prefixHitTokens; }
    qint64 prefixLookupTokens() const { return s_.prefixLookupTokens; }
    qint64 peakBlocksUsed() const { return s_.peakBlocksUsed; }
    qint64 cowCopies() const { return s_.cowCopies; }
    qint64 evictions() const { return s_.evictions; }
    int running() const { return s_.running; }
    int queueDepth() const { return s_.waiting; }
    qint64 preemptions() const { return s_.preemptions; }
    int batchSize() const { return s_.batchSeqs; }
    int batchTokens() const { return s_.batchTokens; }
    double stepMs() const { return s_.stepMs; }
    double prefillTokS() const { return s_.prefillTokS; }
    double decodeTokS() const { return s_.decodeTokS; }
    qint64 totalGeneratedTokens() const { return s_.totalGeneratedTokens; }
    qint64 updates() const { return updates_; }
    QString backend() const { return s_.backend; }
    QString device() const { return s_.device; }
    TimeSeries* decodeSeries() { return &decode_; }
    TimeSeries* prefillSeries() { return &prefill_; }
    TimeSeries* kvSeries() { return &kv_; }
    TimeSeries* batchSeries() { return &batch_; }
    TimeSeries* memorySeries() { return &memory_; }
    SequenceStatsModel* sequences() { return &sequences_; }

signals:
    void updated();

private:
    StatsSnapshot s_;
    qint64 updates_ = 0;
    TimeSeries decode_{kSamples}, prefill_{kSamples}, kv_{kSamples}, batch_{kSamples}, memory_{kSamples};
    SequenceStatsModel sequences_;
};

}  // namespace folio::app
