#pragma once
// What folio-bench sends: requests with their arrival times, from a JSONL prompt file or drawn
// synthetically (random token ids of fixed or random lengths, optionally a shared prefix).
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/frontdoor/request.h"

namespace folio::bench {

// "N" or "MIN:MAX" (uniform, inclusive). Throws folio::Error naming the flag on a bad value.
struct LengthRange {
    int min = 0;
    int max = 0;
    static LengthRange parse(const std::string& text, const std::string& flag);
    int draw(std::mt19937_64& rng) const;
    std::string str() const;
};

struct BenchRequest {
    Request request;
    double arrival_s = 0;  // after the start of the run
};

struct Workload {
    std::vector<BenchRequest> requests;
    std::string description;
};

// One {"prompt": "...", "max_tokens": N} per line (max_tokens optional: `default_max_tokens`);
// prompts are raw text, no chat template. Blank lines are skipped. Throws folio::Error naming the
// file and line on anything else.
Workload load_prompt_file(const std::string& path, int default_max_tokens, const SamplingParams& sampling, bool ignore_eos);

struct SyntheticSpec {
    int num_requests = 16;
    LengthRange input{128, 128};
    LengthRange output{128, 128};
    int shared_prefix = 0;  // the first tokens of every prompt are the same (prefix-cache workloads)
    int vocab_size = 32000;
    int bos_id = 1;         // first token of every prompt; -1: none
    uint64_t seed = 0;
};
// Prompts of random ids in [3, vocab); max_tokens drawn from `output`; EOS ignored so every
// request generates exactly its length.
Workload synthetic_workload(const SyntheticSpec& spec, const SamplingParams& sampling);

// Poisson arrivals at `rate` requests per second (exponential gaps), in order; rate <= 0 or
// infinite: everything at time 0.
void assign_poisson_arrivals(Workload& w, double rate, uint64_t seed);

}  // namespace folio::bench
