#pragma once
// A base run's token distributions, saved to compare a quantized run against (llama.cpp's
// --kl-divergence-base file plays this part): "FOLIOLP1", an 8-byte little-endian header length, a
// JSON header, then one record per scored token in window-major order: the int32 target and the
// vocab float32 log-probabilities. Records sit at fixed offsets, so runs that score windows side by
// side write and read them in any order.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace folio {

struct LogprobHeader {
    std::string model;          // for messages
    std::string weights;        // quantization_name() of the base run
    std::string kv_cache_dtype;
    int ctx = 0;
    int vocab = 0;
    int64_t tokens = 0;          // records
    uint64_t tokens_hash = 0;    // of the scored token stream: the same text, tokenizer and ctx
};

// FNV-1a over the token ids and ctx: a comparison needs exactly the same windows.
uint64_t token_stream_hash(const std::vector<int32_t>& tokens, int ctx);

class LogprobWriter {
public:
    // Creates (truncates) `path`; throws folio::Error naming it when it cannot be written.
    LogprobWriter(const std::string& path, const LogprobHeader& header);
    ~LogprobWriter();
    LogprobWriter(const LogprobWriter&) = delete;
    LogprobWriter& operator=(const LogprobWriter&) = delete;
    void write(int64_t index, int32_t target, const float* logits);  // log-softmax of the row
    void close();  // flushes; throws when the disk is full

private:
    std::string path_;
    LogprobHeader header_;
    std::FILE* f_ = nullptr;
    uint64_t data_offset_ = 0;
    std::vector<float> row_;
};

class LogprobReader {
public:
    // Opens and validates `path` (magic, header, size); throws folio::Error saying what is wrong.
    explicit LogprobReader(const std::string& path);
    ~LogprobReader();
    LogprobReader(const LogprobReader&) = delete;
    LogprobReader& operator=(const LogprobReader&) = delete;
    const LogprobHeader& header() const { return header_; }
    // Record `index`: the target and vocab log-probabilities into `logprobs`.
    int32_t read(int64_t index, float* logprobs);

private:
    std::string path_;
    LogprobHeader header_;
    std::FILE* f_ = nullptr;
    uint64_t data_offset_ = 0;
};

// Per-token comparison of a run against its base: KL(base || run) over the whole vocabulary, whether
// both put the same token first, and the base's own log-likelihood (for its perplexity).
class KlStats {
public:
    void add(const float* base_logprobs, const float* logits, int vocab, int32_t target);
    int64_t count() const { return n_; }
    double mean_kl() const { return n_ ? kl_sum_ / double(n_) : 0.0; }
    double kl_stderr() const;
    double max_kl() const { return kl_max_; }
    double top1_agreement() const { return n_ ? double(same_top_) / double(n_) : 0.0; }
    double base_ppl() const;

private:
    int64_t n_ = 0, same_top_ = 0;
    double kl_sum_ = 0, kl_sum2_ = 0, kl_max_ = 0, base_nll_ = 0;
    std::vector<float> lp_;
};

}  // namespace folio
