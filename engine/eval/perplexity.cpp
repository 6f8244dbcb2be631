#include "engine/eval/perplexity.h"

#include <algorithm>
#include <cmath>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace folio {

std::vector<std::pair<int64_t, int64_t>> perplexity_windows(int64_t num_tokens, int ctx) {
    std::vector<std::pair<int64_t, int64_t>> out;
    const int64_t per = ctx - 1;
    for (int64_t b = 0; b < num_tokens; b += per) out.push_back({b, std::min(num_tokens, b + per)});
    return out;
}

void log_softmax(const float* logits, int vocab, float* out) {
    float mx = -INFINITY;
    for (int i = 0; i < vocab; ++i) mx = std::max(mx, logits[i]);
    double sum = 0;
    for (int i = 0; i < vocab; ++i) sum += std::exp(double(logits[i]) - double(mx));
    const double lse = double(mx) + std::log(sum);
    for (int i = 0; i < vocab; ++i) out[i] = float(double(logits[i]) - lse);
}

double negative_log_likelihood(const float* logits, int vocab, int32_t target) {
    float mx = -INFINITY;
    for (int i = 0; i < vocab; ++i) mx = std::max(mx, logits[i]);
    double sum = 0;
    for (int i = 0; i < vocab; ++i) sum += std::exp(double(logits[i]) - double(mx));
    return double(mx) + std::log(sum) - double(logits[target]);
}

PerplexityResult run_perplexity(Backend& backend, const Model& model, const std::vector<int32_t>& tokens, const PerplexityOptions& o) {
    const ModelConfig& c = model.config;
    if (o.ctx < 2 || o.ctx > model.context_length())
        throw Error("perplexity: --ctx " + std::to_string(o.ctx) + " must be between 2 and the model's context of " +
                    std::to_string(model.context_length()) + " tokens");
    if (tokens.empty()) throw Error("perplexity: the text has no tokens");
    for (int32_t t : tokens)
        if (t < 0 || t >= c.vocab_size) throw Error("perplexity: token id " + std::to_string(t) + " is outside the vocabulary");
    const auto windows = perplexity_windows(int64_t(tokens.size()), o.ctx);
    const int parallel = std::max(1, std::min<int>(o.parallel, int(windows.size())));
    const int block_size = 16;
    const int blocks_per_window = (o.ctx + block_size - 1) / block_size;

    KvLayout layout;
    layout.num_layers = c.num_layers;
    layout.num_kv_heads = c.num_kv_heads;
    layout.head_dim = c.head_dim;
    layout.block_size = block_size;
    layout.num_blocks = int64_t(parallel) * blocks_per_window;
    layout.dtype = o.kv_cache_dtype;
    backend.allocate_kv(layout);

    PerplexityResult r;
    r.windows = int(windows.size());
    r.nll.assign(size_t(tokens.size()), 0.0f);
    const int64_t per = o.ctx - 1;
    double sum = 0, sum2 = 0;
    std::vector<float> logits;
    for (size_t w0 = 0; w0 < windows.size(); w0 += size_t(parallel)) {
        const int n = std::min<int>(parallel, int(windows.size() - w0));
        int64_t longest = 0;
        for (int j = 0; j < n; ++j) longest = std::max(longest, windows[w0 + size_t(j)].second - windows[w0 + size_t(j)].first);
        // Step p feeds position p of every window still running: BOS, then window[p - 1]; its logits
        // score window[p].
        for (int64_t p = 0; p < longest; ++p) {
            ForwardBatch b;
            std::vector<int> slot;
            for (int j = 0; j < n; ++j) {
                const auto [begin, end] = windows[w0 + size_t(j)];
                if (p >= end - begin) continue;
                SeqSlice s;
                s.seq_id = int64_t(w0) + j;
                s.token_offset = int(b.tokens.size());
                s.num_tokens = 1;
                s.context_before = int(p);
                s.block_table_offset = int(b.block_tables.size());
                s.num_blocks = int(p) / block_size + 1;
                s.want_logits = true;
                for (int k = 0; k < s.num_blocks; ++k) b.block_tables.push_back(j * blocks_per_window + k);
                b.tokens.push_back(p == 0 ? int32_t(c.bos_token_id) : tokens[size_t(begin + p - 1)]);
                b.seqs.push_back(s);
                slot.push_back(j);
            }
            backend.forward(b, logits);
            for (size_t i = 0; i < slot.size(); ++i) {
                const int j = slot[i];
                const int64_t begin = windows[w0 + size_t(j)].first;
                const int32_t target = tokens[size_t(begin + p)];
                const float* row = logits.data() + i * size_t(c.vocab_size);
                const double nll = negative_log_likelihood(row, c.vocab_size, target);
                r.nll[size_t(begin + p)] = float(nll);
                sum += nll;
                sum2 += nll * nll;
                ++r.tokens;
                if (o.on_logits) o.on_logits(int64_t(w0 + size_t(j)) * per + p, target, row);
            }
            if (o.progress) o.progress(r.tokens, int64_t(tokens.size()));
        }
    }
    r.mean_nll = sum / double(r.tokens);
    r.ppl = std::exp(r.mean_nll);
    const double var = sum2 / double(r.tokens) - r.mean_nll * r.mean_nll;
    r.ppl_error = r.tokens > 1 && var > 0 ? std::sqrt(var / double(r.tokens - 1)) * r.ppl : 0.0;
    return r;
}

}  // namespace folio
