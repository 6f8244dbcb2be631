#include "engine/backend/backend.h"

#include "engine/sampling/sampler.h"

namespace folio {

Backend::Backend() : sampler_(std::make_unique<Sampler>()) {}
Backend::~Backend() = default;

void Backend::forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows,
                                 std::vector<int32_t>& sampled) {
    forward(batch, scratch_logits_);
    const int n = batch.num_logit_rows();
    sampled.resize(size_t(n));
    if (n == 0) return;
    const int vocab = int(scratch_logits_.size() / size_t(n));
    for (int i = 0; i < n; ++i) sampled[size_t(i)] = sampler_->sample(scratch_logits_.data() + size_t(i) * vocab, vocab, rows[size_t(i)]);
}

}  // namespace folio
