#pragma once
// Values that cross between the GUI thread and the engine worker thread (by queued signal, so by
// copy). Where the engine has a plain struct for the data (chat messages, request timings, engine
// stats), that struct crosses as it is.
#include <QList>
#include <QMetaType>
#include <QString>
#include <vector>

#include "app/gui/store/store_types.h"
#include "engine/chat/chat_message.h"
#include "engine/runtime/engine_stats.h"

namespace folio::app {

// One generation, identified by a ticket the GUI chooses (the worker maps it to the engine's id).
struct GenerationRequest {
    quint64 ticket = 0;
    QString tag;  // "c<conversation id>": shown per sequence in the monitor
    std::vector<folio::ChatMessage> messages;  // system prompt first when set; replies with their reasoning
    SamplingSettings sampling;
    bool enableThinking = true;  // the chat's switch, passed to the template as enable_thinking
    // The last message is a partial assistant reply to go on with (the engine's
    // Request::continue_final_message): no new turn is started, the text continues it.
    bool continueFinal = false;
    // Drafts: n replies to the one prompt in one engine request (Request::n; they share the prompt's
    // KV blocks, reply i samples with seed + i). Their text and ends carry the draft index 0..n-1.
    int n = 1;
};

struct GenerationEnd {
    quint64 ticket = 0;
    int draft = 0;  // which of the request's n replies ended
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
    bool templateThinks = false;  // its chat template reads enable_thinking (the thinking switch means something)
};

// "Serve on localhost", as the worker reports it.
struct ServingStatus {
    bool listening = false;
    QString host;   // 127.0.0.1, or 0.0.0.0 (every address) when an API key is set
    int port = 0;   // the bound port while listening
    QString error;  // why it is not listening (a port in use), for the user
};

}  // namespace folio::app

Q_DECLARE_METATYPE(folio::app::GenerationRequest)
Q_DECLARE_METATYPE(folio::app::ServingStatus)
Q_DECLARE_METATYPE(folio::app::GenerationEnd)
Q_DECLARE_METATYPE(folio::app::ModelInfo)
Q_DECLARE_METATYPE(folio::EngineStats)
