#pragma once
// What each request of an engine (SyncEngine) produced, gathered from its events, for tests that run
// requests to their end and compare tokens, text and how they finished.
#include <map>
#include <string>
#include <vector>

#include "engine/frontdoor/sync_engine.h"

namespace folio::test {

struct RequestOutcome {
    std::vector<int32_t> ids;  // every sampled token, in order
    std::string text;          // the text of all its events
    bool finished = false;     // its final (Finished or Error) event arrived
    Event end;                 // that event: reason, message, prompt ids, timings
};

inline void absorb(const std::vector<Event>& events, std::map<RequestId, RequestOutcome>& out) {
    for (const Event& e : events) {
        RequestOutcome& o = out[e.id];
        if (e.kind == Event::Kind::Token) o.ids.push_back(e.token);
        else {
            o.finished = true;
            o.end = e;
        }
        o.text += e.text;
    }
}

// Steps `core` until no request is unfinished and no event pending, calling on_step(core) after
// every step.
template <class F>
std::map<RequestId, RequestOutcome> drain(SyncEngine& core, F on_step, std::map<RequestId, RequestOutcome> out = {}) {
    while (core.has_unfinished() || core.has_pending_events()) {
        absorb(core.step(), out);
        on_step(core);
    }
    return out;
}

inline std::map<RequestId, RequestOutcome> drain(SyncEngine& core, std::map<RequestId, RequestOutcome> out = {}) {
    return drain(core, [](const SyncEngine&) {}, std::move(out));
}

}  // namespace folio::test
