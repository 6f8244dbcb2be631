// Sampling settings (engine/sampling): the input fills SamplingParams and StopConditions with raw
// values (NaN, infinities, negative counts...) and a small logits row. validate() either refuses
// them with folio::Error or the sampler must handle them: it returns an id inside the vocabulary, the
// argmax when greedy, and throws only when no logit is usable (all NaN or -inf after penalties).
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/core/error.h"
#include "engine/sampling/sampler.h"
#include "engine/sampling/sampling_params.h"

namespace {

// Any float bit pattern, NaN and infinities included.
float raw_float(FuzzedDataProvider& in) {
    const uint32_t bits = in.ConsumeIntegral<uint32_t>();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Mostly the values people type, sometimes any bits at all.
float setting(FuzzedDataProvider& in) {
    return in.ConsumeBool() ? raw_float(in) : in.ConsumeFloatingPointInRange<float>(-3.0f, 3.0f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    folio::SamplingParams p;
    p.temperature = setting(in);
    p.top_k = in.ConsumeIntegralInRange<int>(-2, 80);
    p.top_p = setting(in);
    p.min_p = setting(in);
    p.repetition_penalty = setting(in);
    p.presence_penalty = setting(in);
    p.frequency_penalty = setting(in);
    folio::StopConditions stop;
    stop.max_tokens = in.ConsumeIntegral<int>();
    for (int i = in.ConsumeIntegralInRange<int>(0, 3); i > 0; --i) stop.stop_strings.push_back(in.ConsumeRandomLengthString(8));
    try {
        folio::validate(p);
        folio::validate(stop);
    } catch (const folio::Error&) {
        return 0;
    }

    const int vocab = in.ConsumeIntegralInRange<int>(1, 64);
    std::vector<float> logits(static_cast<size_t>(vocab));
    for (float& l : logits) l = in.ConsumeBool() ? raw_float(in) : in.ConsumeFloatingPointInRange<float>(-20.0f, 20.0f);
    std::vector<int32_t> prompt, output;
    for (int i = in.ConsumeIntegralInRange<int>(0, 8); i > 0; --i) prompt.push_back(in.ConsumeIntegralInRange<int32_t>(0, vocab - 1));
    for (int i = in.ConsumeIntegralInRange<int>(0, 8); i > 0; --i) output.push_back(in.ConsumeIntegralInRange<int32_t>(0, vocab - 1));
    folio::SamplingRow row;
    row.params = &p;
    row.prompt_ids = prompt.data();
    row.num_prompt_ids = int(prompt.size());
    row.output_ids = output.data();
    row.num_output_ids = int(output.size());
    row.seed = in.ConsumeIntegral<uint64_t>();
    row.step = in.ConsumeIntegral<uint32_t>();

    folio::Sampler sampler;
    int32_t id = -1;
    try {
        id = sampler.sample(logits.data(), vocab, row);
    } catch (const folio::Error&) {
        for (float l : logits)  // penalties applied in place: every logit must now be unusable
            if (!std::isnan(l) && !(std::isinf(l) && l < 0)) __builtin_trap();
        return 0;
    }
    if (id < 0 || id >= vocab) __builtin_trap();
    if (p.greedy()) {  // argmax of the penalised logits, lowest id on ties, NaN never chosen over a number
        for (int i = 0; i < vocab; ++i) {
            const float l = logits[size_t(i)];
            if (std::isnan(l)) continue;
            if (std::isnan(logits[size_t(id)]) || l > logits[size_t(id)] || (l == logits[size_t(id)] && i < id)) __builtin_trap();
        }
    }
    return 0;
}
