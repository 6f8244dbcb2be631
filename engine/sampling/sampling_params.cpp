#include "engine/sampling/sampling_params.h"

#include <cmath>
#include <sstream>

#include "engine/core/error.h"
#include "engine/sampling/token_logprobs.h"

namespace folio {
namespace {

[[noreturn]] void bad(const char* name, const char* want, double got) {
    std::ostringstream ss;
    ss << name << " must be " << want << ", got " << got;
    throw Error(ss.str());
}

}  // namespace

void validate(const SamplingParams& p) {
    if (!std::isfinite(p.temperature) || p.temperature < 0) bad("temperature", "a number >= 0 (0: greedy)", p.temperature);
    if (p.top_k < 0) bad("top_k", ">= 0 (0: off)", p.top_k);
    if (!(p.top_p >= 0 && p.top_p <= 1)) bad("top_p", "in [0, 1] (1: off)", p.top_p);
    if (!(p.min_p >= 0 && p.min_p <= 1)) bad("min_p", "in [0, 1] (0: off)", p.min_p);
    if (!std::isfinite(p.repetition_penalty) || p.repetition_penalty <= 0)
        bad("repetition_penalty", "a number > 0 (1: off)", p.repetition_penalty);
    if (!(p.presence_penalty >= -2 && p.presence_penalty <= 2)) bad("presence_penalty", "in [-2, 2]", p.presence_penalty);
    if (!(p.frequency_penalty >= -2 && p.frequency_penalty <= 2)) bad("frequency_penalty", "in [-2, 2]", p.frequency_penalty);
    if (p.logprobs < -1 || p.logprobs > kMaxTopLogprobs)
        bad("logprobs", "in [-1, 20] (-1: off, else the number of top alternatives)", p.logprobs);
}

void validate(const StopConditions& stop) {
    if (stop.max_tokens < 1) bad("max_tokens", ">= 1", stop.max_tokens);
    for (const auto& s : stop.stop_strings)
        if (s.empty()) throw Error("a stop string must not be empty");
}

}  // namespace folio
