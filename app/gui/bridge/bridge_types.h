#pragma once
// Values that cross between the GUI thread and the engine worker thread (by queued signal, so by
// copy). Qt types only: the GUI side never sees engine types.
#include <QList>
#include <QMetaType>
#include <QString>

#include "app/gui/store/store_types.h"

namespace folio::app {

// One generation, identified by a ticket the GUI chooses (the worker maps it to the engine's id).
struct GenerationRequest {
    quint64 ticket = 0;
    QString tag;  // "c<conversation id>": shown per sequence in the monitor
    QList<QPair<QString, QString>> messages;  // (role, content), system prompt first when set
    SamplingSettings sampling;
    // The last message is a partial assistant reply to go on with (the engine's
    // Request::continue_final_message): no new turn is started, the text continues it.
    bool continueFinal = false;
};

struct GenerationEnd {
    quint64 ticket = 0;
    bool error = false;
    QString message;  // error text for the user
    ReplyStats stats;
};

struct ModelInfo {
    QString spec;
    QString name;
    QString quantization;
    QString architecture;
    QString backend;
    QString device;
    int contextLength = 0;
    int layers = 0;
    int hiddenSize = 0;
    qint64 kvBlocks = 0;
    int blockSize = 0;
};

struct SequenceSnapshot {
    QString tag;
    QString state;  // "waiting", "prefilling", "decoding", "preempted"; "finished" for the monitor's recent replies
    int promptTokens = 0;
    int generatedTokens = 0;
    int blocks = 0;
    int sharedBlocks = 0;
    double prefillTokS = 0;
    double decodeTokS = 0;
};

struct StatsSnapshot {
    QString kvCacheDtype;       // "fp32", "fp16", "fp8_e4m3", "fp8_e5m2"
    quint64 kvBytesPerBlock = 0;
    qint64 blocksTotal = 0, blocksUsed = 0, blocksCached = 0, blocksFree = 0;
    int blockSize = 16;
    double fragmentation = 0;
    double prefixHitRate = 0;
    qint64 prefixHitTokens = 0, prefixLookupTokens = 0;  // since the model was loaded
    qint64 peakBlocksUsed = 0;
    qint64 cowCopies = 0;  // blocks copied on write (a shared block about to diverge)
    qint64 evictions = 0;  // cached prefix blocks reused for new tokens
    int running = 0, waiting = 0;
    qint64 preemptions = 0;
    int batchSeqs = 0, batchTokens = 0;
    double stepMs = 0;
    qint64 steps = 0;
    double prefillTokS = 0, decodeTokS = 0;
    qint64 totalPromptTokens = 0, totalGeneratedTokens = 0;
    QString backend, device;
    quint64 memoryUsed = 0, memoryTotal = 0, weightsBytes = 0, kvBytes = 0;
    int gpuUtilization = -1;
    QList<SequenceSnapshot> sequences;
};

}  // namespace folio::app

Q_DECLARE_METATYPE(folio::app::GenerationRequest)
Q_DECLARE_METATYPE(folio::app::GenerationEnd)
Q_DECLARE_METATYPE(folio::app::ModelInfo)
Q_DECLARE_METATYPE(folio::app::StatsSnapshot)
