// Perplexity and KL divergence on the stories260K fixture (a real trained model) over a short story:
// the windows and statistics are computed as defined (checked against a one-window-at-a-time run),
// the FP8 KV cache keeps perplexity within 1% of the fp32 cache (the bar), FP8 weights stay
// close, a run compared with its own saved log-probabilities has KL 0 and full top-1 agreement, and
// a broken or mismatched base file is refused with a message that says why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/eval/logprob_file.h"
#include "engine/eval/perplexity.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

struct Loaded {
    std::shared_ptr<Model> model;
    std::vector<int32_t> tokens;
};

Loaded load(const std::string& model, const std::string& quantization = "") {
    LoadOptions o;
    o.quantization = quantization;
    Loaded r;
    r.model = load_model(test::fixture_path("models/" + model), o);
    r.tokens = r.model->tokenizer->encode(test::read_file(test::fixture_path("text/story.txt")));
    return r;
}

PerplexityResult ppl(const Loaded& r, KvCacheDtype kv, int ctx = 128, int parallel = 4,
                     const std::function<void(int64_t, int32_t, const float*)>& on_logits = {}, bool calibrate = false) {
    BackendOptions bo;
    bo.cpu_activations = CpuActivations::Exact;  // the reference mode (the CPU default is int8 activations)
    bo.kv_scales_from_first_batch = calibrate;
    auto backend = make_cpu_backend(*r.model, bo);
    PerplexityOptions o;
    o.ctx = ctx;
    o.parallel = parallel;
    o.kv_cache_dtype = kv;
    o.on_logits = on_logits;
    return run_perplexity(*backend, *r.model, r.tokens, o);
}

TEST(Perplexity, WindowsCoverEveryTokenOnce) {
    const auto w = perplexity_windows(300, 128);
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0], (std::pair<int64_t, int64_t>{0, 127}));
    EXPECT_EQ(w[1], (std::pair<int64_t, int64_t>{127, 254}));
    EXPECT_EQ(w[2], (std::pair<int64_t, int64_t>{254, 300}));
}

TEST(Perplexity, Stories260KAsDefined) {
    const Loaded r = load("stories260K");
    ASSERT_GT(r.tokens.size(), 600u);
    const PerplexityResult a = ppl(r, KvCacheDtype::Auto);
    EXPECT_EQ(a.tokens, int64_t(r.tokens.size()));
    EXPECT_EQ(a.windows, int((r.tokens.size() + 126) / 127));
    // A trained model on text of its domain: far below the 512-token vocabulary's uniform perplexity.
    EXPECT_GT(a.ppl, 1.5);
    EXPECT_LT(a.ppl, 30.0);
    double sum = 0;
    for (float v : a.nll) sum += v;
    EXPECT_NEAR(a.mean_nll, sum / double(a.nll.size()), 1e-5);
    EXPECT_GT(a.ppl_error, 0.0);
    // Windows side by side or one at a time: the same numbers (batch invariance).
    const PerplexityResult b = ppl(r, KvCacheDtype::Auto, 128, 1);
    EXPECT_EQ(a.nll, b.nll);
}

TEST(Perplexity, Fp8KvCacheStaysWithinOnePercent) {
    const Loaded r = load("stories260K");
    const double base = ppl(r, KvCacheDtype::Auto).ppl;
    // E4M3 with scales from the first batch (the checkpoint has none): the bar.
    const double calibrated = ppl(r, KvCacheDtype::Fp8E4M3, 128, 4, {}, true).ppl;
    EXPECT_LT(std::fabs(calibrated / base - 1.0), 0.01) << calibrated << " vs fp32 KV " << base;
    // With vLLM's default scale of 1.0 (no calibration) E4M3 measured +1.6% on this model, E5M2 (one
    // mantissa bit less) +6.6% even calibrated: held here so that a change making either worse shows.
    const double unit = ppl(r, KvCacheDtype::Fp8E4M3).ppl;
    EXPECT_LT(std::fabs(unit / base - 1.0), 0.02) << unit << " vs fp32 KV " << base;
    const double e5m2 = ppl(r, KvCacheDtype::Fp8E5M2, 128, 4, {}, true).ppl;
    EXPECT_LT(std::fabs(e5m2 / base - 1.0), 0.08) << e5m2 << " vs fp32 KV " << base;
    std::printf("stories260K ppl: fp32 KV %.4f, fp8_e4m3 calibrated %.4f, fp8_e4m3 scale 1 %.4f, fp8_e5m2 calibrated %.4f\n", base,
                calibrated, unit, e5m2);
}

TEST(Perplexity, Fp8WeightsStayClose) {
    const double base = ppl(load("stories260K"), KvCacheDtype::Auto).ppl;
    for (const Loaded& r : {load("stories260K-fp8"), load("stories260K-fp8-ct"), load("stories260K", "fp8")}) {
        const double q = ppl(r, KvCacheDtype::Auto).ppl;
        EXPECT_LT(std::fabs(q / base - 1.0), 0.03) << r.model->quantization_name() << ": " << q << " vs fp32 " << base;
    }
}

TEST(Perplexity, KlDivergenceAgainstASavedBase) {
    const Loaded r = load("stories260K");
    test::TempDir d;
    const std::string path = d.file("base.lp");
    LogprobHeader h;
    h.model = "stories260K";
    h.ctx = 128;
    h.vocab = r.model->config.vocab_size;
    h.tokens = int64_t(r.tokens.size());
    h.tokens_hash = token_stream_hash(r.tokens, 128);
    LogprobWriter w(path, h);
    const PerplexityResult base = ppl(r, KvCacheDtype::Auto, 128, 4, [&](int64_t i, int32_t t, const float* row) { w.write(i, t, row); });
    w.close();

    LogprobReader reader(path);
    EXPECT_EQ(reader.header().tokens_hash, token_stream_hash(r.tokens, 128));
    std::vector<float> lp(size_t(h.vocab));
    const auto compare = [&](const Loaded& run, KvCacheDtype kv) {
        KlStats kl;
        ppl(run, kv, 128, 3, [&](int64_t i, int32_t t, const float* row) {
            EXPECT_EQ(reader.read(i, lp.data()), t);
            kl.add(lp.data(), row, h.vocab, t);
        });
        return kl;
    };
    const KlStats same = compare(r, KvCacheDtype::Auto);
    EXPECT_EQ(same.count(), h.tokens);
    EXPECT_LT(same.mean_kl(), 1e-6);
    EXPECT_EQ(same.top1_agreement(), 1.0);
    EXPECT_NEAR(same.base_ppl(), base.ppl, 1e-3 * base.ppl);
    const KlStats fp8 = compare(load("stories260K-fp8-ct"), KvCacheDtype::Fp8E4M3);
    EXPECT_GT(fp8.mean_kl(), 1e-6);
    EXPECT_LT(fp8.mean_kl(), 0.05);
    EXPECT_GT(fp8.top1_agreement(), 0.9);
    EXPECT_GE(fp8.max_kl(), fp8.mean_kl());
}

TEST(Perplexity, BadBaseFilesAreRefused) {
    test::TempDir d;
    test::write_file(d.file("junk.lp"), "not a log-probability file at all");
    try {
        LogprobReader r(d.file("junk.lp"));
        ADD_FAILURE() << "a junk file was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("not a Folio log-probability file"), std::string::npos) << e.what();
    }
    LogprobHeader h;
    h.model = "m";
    h.ctx = 8;
    h.vocab = 4;
    h.tokens = 3;
    {
        LogprobWriter w(d.file("short.lp"), h);
        const float row[4] = {0, 1, 2, 3};
        w.write(0, 1, row);
        w.write(1, 2, row);  // record 2 never written: the file is one record short
        w.close();
    }
    try {
        LogprobReader r(d.file("short.lp"));
        ADD_FAILURE() << "a truncated file was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace folio
