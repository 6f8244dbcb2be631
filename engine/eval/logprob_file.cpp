#include "engine/eval/logprob_file.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/eval/perplexity.h"

namespace folio {

namespace {

constexpr char kMagic[8] = {'F', 'O', 'L', 'I', 'O', 'L', 'P', '1'};
constexpr uint64_t kMaxHeader = 1 << 20;

uint64_t record_bytes(int vocab) { return 4 + 4 * uint64_t(vocab); }

}  // namespace

uint64_t token_stream_hash(const std::vector<int32_t>& tokens, int ctx) {
    uint64_t h = 1469598103934665603ull;
    const auto mix = [&](uint32_t v) {
        for (int i = 0; i < 4; ++i) {
            h ^= (v >> (8 * i)) & 0xFFu;
            h *= 1099511628211ull;
        }
    };
    mix(uint32_t(ctx));
    for (int32_t t : tokens) mix(uint32_t(t));
    return h;
}

LogprobWriter::LogprobWriter(const std::string& path, const LogprobHeader& header) : path_(path), header_(header) {
    f_ = std::fopen(path.c_str(), "wb");
    if (!f_) throw Error("cannot write " + path + ": " + std::strerror(errno));
    const nlohmann::json j = {{"model", header.model},   {"weights", header.weights},         {"kv_cache_dtype", header.kv_cache_dtype},
                              {"ctx", header.ctx},       {"vocab", header.vocab},             {"tokens", header.tokens},
                              {"tokens_hash", std::to_string(header.tokens_hash)}};
    const std::string text = j.dump();
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t((uint64_t(text.size()) >> (8 * i)) & 0xFF);
    if (std::fwrite(kMagic, 1, 8, f_) != 8 || std::fwrite(len, 1, 8, f_) != 8 || std::fwrite(text.data(), 1, text.size(), f_) != text.size())
        throw Error("cannot write " + path + ": " + std::strerror(errno));
    data_offset_ = 16 + text.size();
    row_.resize(size_t(header.vocab));
}

LogprobWriter::~LogprobWriter() {
    if (f_) std::fclose(f_);
}

void LogprobWriter::write(int64_t index, int32_t target, const float* logits) {
    if (index < 0 || index >= header_.tokens) throw Error(path_ + ": record " + std::to_string(index) + " is outside the file");
    log_softmax(logits, header_.vocab, row_.data());
    if (std::fseek(f_, long(data_offset_ + uint64_t(index) * record_bytes(header_.vocab)), SEEK_SET) != 0 ||
        std::fwrite(&target, 4, 1, f_) != 1 || std::fwrite(row_.data(), 4, row_.size(), f_) != row_.size())
        throw Error("cannot write " + path_ + ": " + std::strerror(errno));
}

void LogprobWriter::close() {
    if (!f_) return;
    const bool ok = std::fflush(f_) == 0;
    std::fclose(f_);
    f_ = nullptr;
    if (!ok) throw Error("cannot write " + path_ + ": " + std::strerror(errno) + " (disk full?)");
}

LogprobReader::LogprobReader(const std::string& path) : path_(path) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw Error("cannot read " + path + ": " + std::strerror(errno));
    const auto bad = [&](const std::string& what) { throw Error(path + ": " + what + " (write one with folio-cli perplexity --save-logits)"); };
    char magic[8];
    uint8_t len[8];
    if (std::fread(magic, 1, 8, f_) != 8 || std::memcmp(magic, kMagic, 8) != 0 || std::fread(len, 1, 8, f_) != 8)
        bad("not a Folio log-probability file");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
    if (n == 0 || n > kMaxHeader) bad("corrupt header length");
    std::string text(size_t(n), '\0');
    if (std::fread(text.data(), 1, text.size(), f_) != text.size()) bad("truncated header");
    try {
        const auto j = nlohmann::json::parse(text);
        header_.model = j.at("model").get<std::string>();
        header_.weights = j.at("weights").get<std::string>();
        header_.kv_cache_dtype = j.at("kv_cache_dtype").get<std::string>();
        header_.ctx = j.at("ctx").get<int>();
        header_.vocab = j.at("vocab").get<int>();
        header_.tokens = j.at("tokens").get<int64_t>();
        header_.tokens_hash = std::stoull(j.at("tokens_hash").get<std::string>());
    } catch (const std::exception& e) {
        bad(std::string("corrupt header: ") + e.what());
    }
    if (header_.vocab <= 0 || header_.tokens <= 0 || header_.ctx < 2) bad("corrupt header values");
    data_offset_ = 16 + n;
    std::fseek(f_, 0, SEEK_END);
    const long size = std::ftell(f_);
    const uint64_t want = data_offset_ + uint64_t(header_.tokens) * record_bytes(header_.vocab);
    if (size < 0 || uint64_t(size) != want)
        bad("holds " + std::to_string(size) + " bytes, expected " + std::to_string(want) + " for " + std::to_string(header_.tokens) +
            " tokens of a " + std::to_string(header_.vocab) + "-token vocabulary: the file is truncated (did the base run finish?)");
}

LogprobReader::~LogprobReader() {
    if (f_) std::fclose(f_);
}

int32_t LogprobReader::read(int64_t index, float* logprobs) {
    if (index < 0 || index >= header_.tokens) throw Error(path_ + ": record " + std::to_string(index) + " is outside the file");
    int32_t target = 0;
    if (std::fseek(f_, long(data_offset_ + uint64_t(index) * record_bytes(header_.vocab)), SEEK_SET) != 0 ||
        std::fread(&target, 4, 1, f_) != 1 || std::fread(logprobs, 4, size_t(header_.vocab), f_) != size_t(header_.vocab))
        throw Error("cannot read " + path_ + ": " + std::strerror(errno));
    return target;
}

void KlStats::add(const float* base, const float* logits, int vocab, int32_t target) {
    lp_.resize(size_t(vocab));
    log_softmax(logits, vocab, lp_.data());
    double kl = 0;
    int top_b = 0, top_r = 0;
    for (int i = 0; i < vocab; ++i) {
        const double p = std::exp(double(base[i]));
        if (p > 0) kl += p * (double(base[i]) - double(lp_[size_t(i)]));
        if (base[i] > base[top_b]) top_b = i;
        if (lp_[size_t(i)] > lp_[size_t(top_r)]) top_r = i;
    }
    kl = std::max(0.0, kl);  // rounding can leave a tiny negative sum for identical distributions
    ++n_;
    kl_sum_ += kl;
    kl_sum2_ += kl * kl;
    kl_max_ = std::max(kl_max_, kl);
    same_top_ += top_b == top_r ? 1 : 0;
    base_nll_ -= double(base[target]);
}

double KlStats::kl_stderr() const {
    if (n_ < 2) return 0.0;
    const double mean = mean_kl();
    const double var = kl_sum2_ / double(n_) - mean * mean;
    return var > 0 ? std::sqrt(var / double(n_ - 1)) : 0.0;
}

double KlStats::base_ppl() const { return n_ ? std::exp(base_nll_ / double(n_)) : 0.0; }

}  // namespace folio
