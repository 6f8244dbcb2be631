#include "engine/model/rope.h"

#include <cmath>

namespace folio {

std::vector<float> rope_inv_freq(const ModelConfig& c) {
    const int half = c.head_dim / 2;
    std::vector<float> inv(static_cast<size_t>(half));
    for (int i = 0; i < half; ++i) {
        // transformers: 1 / base ** (arange(0, dim, 2).float() / dim), in fp32
        const float exponent = float(2 * i) / float(c.head_dim);
        inv[size_t(i)] = 1.0f / std::pow(c.rope_theta, exponent);
    }
    if (c.rope_scaling) {
        const RopeScaling& s = *c.rope_scaling;
        if (s.type == "linear") {
            for (auto& f : inv) f /= s.factor;
        } else if (s.type == "llama3") {
            const float old_ctx = float(s.original_max_position_embeddings);
            const float low_wavelen = old_ctx / s.low_freq_factor;
            const float high_wavelen = old_ctx / s.high_freq_factor;
            constexpr float kPi = 3.14159265358979323846f;
            for (auto& f : inv) {
                const float wavelen = 2.0f * kPi / f;
                if (wavelen < high_wavelen) continue;  // high frequency: unchanged
                if (wavelen > low_wavelen) {
                    f = f / s.factor;
                } else {
                    const float smooth = (old_ctx / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
                    f = (1.0f - smooth) * f / s.factor + smooth * f;
                }
            }
        }
    }
    return inv;
}

}  // namespace folio
