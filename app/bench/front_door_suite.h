#pragma once
// `folio-bench --suite frontdoor`: does a long chat history being submitted hold up the streams
// already running? N streams decode on the threaded Engine while every step's start is noted
// (StepClock); then a chat request whose history is about --history-tokens tokens is submitted. The
// time between consecutive steps (what a stream waits between two tokens) is reported before, while
// the request's input is processed (submit to handed to the core: template + tokens), and after,
// with the input processing's own time. The request then waits in the core (max_num_seqs is the
// streams'), so its prefill, which is the scheduler's business (chunked prefill), stays out of the
// figures. Both ways are run, alternating round by round: the input processed on the front door's
// thread (the engine as it is), and on the step thread (EngineOptions::input_on_step_thread), as it
// would be inside the loop.
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/backend/backend.h"
#include "engine/runtime/engine_options.h"

namespace folio {
struct Model;
}

namespace folio::bench {

struct FrontDoorSuiteOptions {
    int streams = 4;
    int stream_prompt_len = 32;
    int history_tokens = 32000;  // the chat request's prompt, approximately
    int max_tokens = 4;          // the chat request's reply (never generated: it is cancelled while waiting)
    int rounds = 1;
    double window_s = 1.0;       // of steps measured before the submission and after the hand-off
    uint64_t seed = 1;
};

// Each engine runs on the backend `engine` picks (make_local_engine), timed step by step.
nlohmann::json run_front_door_suite(const std::shared_ptr<const Model>& model, const EngineOptions& engine,
                                    const FrontDoorSuiteOptions& options);
std::string format_front_door_suite(const nlohmann::json& result);

}  // namespace folio::bench
