#pragma once
// The front door's way out: the core's CoreEvents become the caller's Events. Each request's tokens
// are detokenized and matched against its stop strings (TextStream), off the step loop.
//
// A stop string ends a request here, for the caller, at once: the token that completes it comes as
// a Token event with the text before the stop string, then Finished(StopString) with the timings as
// of that token. The request is listed in `aborts` for the caller to abort() in the core, and
// whatever the core still reports for it (tokens it sampled before the abort arrived) is dropped:
// the caller never sees a token after the one that completed the stop string.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/frontdoor/request.h"
#include "engine/frontdoor/text_stream.h"
#include "engine/runtime/core_request.h"
#include "engine/tokenizer/tokenizer.h"

namespace folio {

// What the output processor keeps of a request (the input processor makes it).
struct OutputRequest {
    std::vector<std::string> stop_strings;
    bool continues_text = false;      // a continued reply: no leading-space rule on the first token
    std::vector<int32_t> prompt_ids;  // for a Finished event the front door makes itself (a stop string)
    double input_ms = 0;              // RequestTimings::input_ms, reported on the request's last event
};

class OutputProcessor {
public:
    // Throws folio::Error when there is no tokenizer (text cannot be streamed without one).
    OutputProcessor(std::shared_ptr<const Tokenizer> tokenizer, const std::string& model_name);

    // A request the core is about to run: registered before the core can report on it. Events for
    // ids never registered (or already ended here) are dropped.
    void add(RequestId id, OutputRequest request);
    // `child` was forked from `parent` in the core: the parent's stop strings and prompt, its own text
    // from the fork on. `continues_text`: the parent had generated tokens (so the child's first token
    // continues their text). False, doing nothing, when the parent is not here (it ended here).
    bool fork(RequestId parent, RequestId child, bool continues_text);

    // Appends to `out` the events for `core_events` (in their order), and to `aborts` the requests
    // this call ended that the core still runs (a stop string, a token the tokenizer cannot decode).
    void process(std::vector<CoreEvent>&& core_events, std::vector<Event>& out, std::vector<RequestId>& aborts);

    bool has(RequestId id) const { return requests_.count(id) > 0; }
    size_t num_requests() const { return requests_.size(); }

private:
    struct State {
        OutputRequest request;
        TextStream text;
    };

    std::shared_ptr<const Tokenizer> tokenizer_;
    std::unordered_map<RequestId, std::unique_ptr<State>> requests_;
};

}  // namespace folio
