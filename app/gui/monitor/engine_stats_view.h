#pragma once
// QML's view of the engine's own stats structs (engine/runtime/engine_stats.h, engine/kv/kv_counters.h,
// engine/backend/backend.h's MemoryInfo). Each gadget holds the engine struct as the engine made it;
// its properties read straight from it (a figure the engine adds is one line here), and nothing is
// copied field by field into a parallel struct on the way. QML reads `monitor.stats.kv.blocksUsed`.
#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>
#include <memory>

#include "engine/runtime/engine_stats.h"

namespace folio::app {

class KvCountersView {
    Q_GADGET
    QML_VALUE_TYPE(kvCounters)
    Q_PROPERTY(qint64 blocksTotal READ blocksTotal CONSTANT)
    Q_PROPERTY(qint64 blocksUsed READ blocksUsed CONSTANT)
    Q_PROPERTY(qint64 blocksCached READ blocksCached CONSTANT)
    Q_PROPERTY(qint64 blocksFree READ blocksFree CONSTANT)
    Q_PROPERTY(int blockSize READ blockSize CONSTANT)
    Q_PROPERTY(double fragmentation READ fragmentation CONSTANT)
    Q_PROPERTY(double prefixHitRate READ prefixHitRate CONSTANT)
    Q_PROPERTY(qint64 prefixHitTokens READ prefixHitTokens CONSTANT)
    Q_PROPERTY(qint64 prefixLookupTokens READ prefixLookupTokens CONSTANT)
    Q_PROPERTY(qint64 evictions READ evictions CONSTANT)
    Q_PROPERTY(qint64 cowCopies READ cowCopies CONSTANT)
public:
    KvCountersView() = default;
    explicit KvCountersView(const folio::KvCounters& c) : c_(c) {}
    qint64 blocksTotal() const { return c_.blocks_total; }
    qint64 blocksUsed() const { return c_.blocks_used; }
    qint64 blocksCached() const { return c_.blocks_cached; }
    qint64 blocksFree() const { return c_.blocks_free; }
    int blockSize() const { return c_.block_size; }
    double fragmentation() const { return c_.fragmentation(); }
    double prefixHitRate() const { return c_.prefix_hit_rate(); }
    qint64 prefixHitTokens() const { return c_.prefix_hit_tokens; }
    qint64 prefixLookupTokens() const { return c_.prefix_lookup_tokens; }
    qint64 evictions() const { return c_.evictions; }
    qint64 cowCopies() const { return c_.cow_copies; }

private:
    folio::KvCounters c_;
};

// Bytes as doubles: QML numbers.
class MemoryView {
    Q_GADGET
    QML_VALUE_TYPE(memoryInfo)
    Q_PROPERTY(double usedBytes READ usedBytes CONSTANT)
    Q_PROPERTY(double totalBytes READ totalBytes CONSTANT)
    Q_PROPERTY(double weightsBytes READ weightsBytes CONSTANT)
    Q_PROPERTY(double kvBytes READ kvBytes CONSTANT)
    Q_PROPERTY(int utilizationPct READ utilizationPct CONSTANT)
public:
    MemoryView() = default;
    explicit MemoryView(const folio::MemoryInfo& m) : m_(m) {}
    double usedBytes() const { return double(m_.device_used); }
    double totalBytes() const { return double(m_.device_total); }
    double weightsBytes() const { return double(m_.weights); }
    double kvBytes() const { return double(m_.kv_cache); }
    int utilizationPct() const { return m_.utilization_pct; }

private:
    folio::MemoryInfo m_;
};

// Shares the snapshot it views: QML copies gadgets on every read, and a snapshot is not small.
class EngineStatsView {
    Q_GADGET
    QML_VALUE_TYPE(engineStats)
    Q_PROPERTY(folio::app::KvCountersView kv READ kv CONSTANT)
    Q_PROPERTY(folio::app::MemoryView memory READ memory CONSTANT)
    Q_PROPERTY(QString kvCacheDtype READ kvCacheDtype CONSTANT)  // "fp32", "fp16", "fp8_e4m3", "fp8_e5m2"
    Q_PROPERTY(double kvBytesPerBlock READ kvBytesPerBlock CONSTANT)
    Q_PROPERTY(qint64 peakBlocksUsed READ peakBlocksUsed CONSTANT)
    Q_PROPERTY(int running READ running CONSTANT)
    Q_PROPERTY(int waiting READ waiting CONSTANT)
    Q_PROPERTY(qint64 preemptions READ preemptions CONSTANT)
    Q_PROPERTY(int batchSeqs READ batchSeqs CONSTANT)
    Q_PROPERTY(int batchTokens READ batchTokens CONSTANT)
    Q_PROPERTY(double stepMs READ stepMs CONSTANT)
    Q_PROPERTY(qint64 steps READ steps CONSTANT)
    Q_PROPERTY(double prefillTokS READ prefillTokS CONSTANT)
    Q_PROPERTY(double decodeTokS READ decodeTokS CONSTANT)
    Q_PROPERTY(qint64 totalPromptTokens READ totalPromptTokens CONSTANT)
    Q_PROPERTY(qint64 totalGeneratedTokens READ totalGeneratedTokens CONSTANT)
    Q_PROPERTY(QString backend READ backend CONSTANT)
    Q_PROPERTY(QString device READ device CONSTANT)
public:
    EngineStatsView() : s_(std::make_shared<const folio::EngineStats>()) {}
    explicit EngineStatsView(std::shared_ptr<const folio::EngineStats> s) : s_(std::move(s)) {}
    const folio::EngineStats& stats() const { return *s_; }
    KvCountersView kv() const { return KvCountersView(s_->kv); }
    MemoryView memory() const { return MemoryView(s_->memory); }
    QString kvCacheDtype() const { return QString::fromStdString(s_->kv_cache_dtype); }
    double kvBytesPerBlock() const { return double(s_->kv_bytes_per_block); }
    qint64 peakBlocksUsed() const { return s_->peak_blocks_used; }
    int running() const { return s_->running; }
    int waiting() const { return s_->waiting; }
    qint64 preemptions() const { return s_->preemptions; }
    int batchSeqs() const { return s_->last_batch_seqs; }
    int batchTokens() const { return s_->last_batch_tokens; }
    double stepMs() const { return s_->last_step_ms; }
    qint64 steps() const { return s_->steps; }
    double prefillTokS() const { return s_->prefill_tok_s; }
    double decodeTokS() const { return s_->decode_tok_s; }
    qint64 totalPromptTokens() const { return s_->total_prompt_tokens; }
    qint64 totalGeneratedTokens() const { return s_->total_generated_tokens; }
    QString backend() const { return QString::fromStdString(s_->backend); }
    QString device() const { return QString::fromStdString(s_->device_name); }

private:
    std::shared_ptr<const folio::EngineStats> s_;
};

}  // namespace folio::app
