#pragma once
// A ReplySource driven by the test itself: it records what the chat layer asks for and lets the test
// play back text and endings. For testing the models and controllers without a model; the real
// engine path is covered by tst_bridge and tst_ui.
#include <QList>

#include "app/gui/bridge/reply_source.h"

namespace folio::app::test {

class ScriptedReplies : public ReplySource {
public:
    quint64 submit(GenerationRequest request) override {
        request.ticket = next_++;
        requests << request;
        return request.ticket;
    }
    void cancel(quint64 ticket) override { cancelled << ticket; }

    void say(quint64 ticket, const QString& text, int draft = 0) { emit delta(ticket, text, 1, draft); }
    void end(quint64 ticket, int tokens = 0, bool error = false, const QString& message = {}, int draft = 0) {
        GenerationEnd e;
        e.ticket = ticket;
        e.draft = draft;
        e.error = error;
        e.message = message;
        e.stats.timings.generated_tokens = tokens;
        e.stats.timings.prompt_tokens = 5;
        e.stats.timings.decode_tok_s = 50;
        e.stats.finishReason = error ? QStringLiteral("error") : QStringLiteral("stop");
        emit finished(e);
    }

    QList<GenerationRequest> requests;
    QList<quint64> cancelled;

private:
    quint64 next_ = 100;
};

}  // namespace folio::app::test
