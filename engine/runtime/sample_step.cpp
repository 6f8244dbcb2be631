#include "engine/runtime/sample_step.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace folio {

void sample_step(Backend& backend, Sampler& sampler, const ForwardBatch& batch, const StepSampling& sampling,
                 std::vector<float>& logits, std::vector<float>& scratch, std::vector<int32_t>& sampled,
                 std::vector<TokenLogprobs>& logprobs) {
    const auto& rows = sampling.rows;
    const bool wants_logprobs =
        std::any_of(rows.begin(), rows.end(), [](const SamplingRow& r) { return r.params && r.params->logprobs >= 0; });
    logprobs.clear();
    if (!wants_logprobs && sampling.logits_row.empty() && backend.forward_and_sample(batch, rows, sampled)) return;
    backend.forward(batch, logits);
    if (sampling.logits_row.empty()) {
        sampler.sample_rows(logits, rows, sampled, wants_logprobs ? &logprobs : nullptr);
        return;
    }
    // Rows sharing a logits row each sample a copy of it (the sampler changes a row in place).
    if (sampling.logits_row.size() != rows.size()) throw Error("sample_step: logits_row does not match the rows");
    int num_rows = 0;
    for (const SeqSlice& s : batch.seqs) num_rows += s.want_logits ? 1 : 0;
    if (num_rows == 0 || logits.size() % size_t(num_rows) != 0)
        throw Error("sample_step: " + std::to_string(logits.size()) + " logits are not " + std::to_string(num_rows) + " whole rows");
    const size_t vocab = logits.size() / size_t(num_rows);
    scratch.resize(rows.size() * vocab);
    for (size_t i = 0; i < rows.size(); ++i) {
        const int src = sampling.logits_row[i];
        if (src < 0 || src >= num_rows) throw Error("sample_step: logits row " + std::to_string(src) + " does not exist");
        std::copy_n(logits.begin() + std::ptrdiff_t(size_t(src) * vocab), vocab, scratch.begin() + std::ptrdiff_t(i * vocab));
    }
    sampler.sample_rows(scratch, rows, sampled, wants_logprobs ? &logprobs : nullptr);
}

}  // namespace folio
