#include "app/bench/workload.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "app/cli/command_line.h"
#include "engine/core/error.h"

namespace folio::bench {

LengthRange LengthRange::parse(const std::string& text, const std::string& flag) {
    auto number = [&](const std::string& s) {
        size_t used = 0;
        int v = 0;
        try {
            v = std::stoi(s, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != s.size() || s.empty() || v < 1) throw cli::UsageError("--" + flag + " needs a positive length N or a range MIN:MAX, got '" + text + "'");
        return v;
    };
    LengthRange r;
    const auto colon = text.find(':');
    if (colon == std::string::npos) {
        r.min = r.max = number(text);
    } else {
        r.min = number(text.substr(0, colon));
        r.max = number(text.substr(colon + 1));
        if (r.max < r.min) throw cli::UsageError("--" + flag + " range " + text + " has MAX below MIN");
    }
    return r;
}

int LengthRange::draw(std::mt19937_64& rng) const {
    if (min == max) return min;
    return std::uniform_int_distribution<int>(min, max)(rng);
}

std::string LengthRange::str() const { return min == max ? std::to_string(min) : std::to_string(min) + ":" + std::to_string(max); }

Workload load_prompt_file(const std::string& path, int default_max_tokens, const SamplingParams& sampling, bool ignore_eos) {
    std::ifstream in(path);
    if (!in) throw Error("cannot open the prompt file " + path);
    Workload w;
    std::string line;
    int lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + " line " + std::to_string(lineno);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) {
            throw Error(where + ": not valid JSON (" + std::string(e.what()) + ")");
        }
        if (!j.is_object() || !j.contains("prompt") || !j["prompt"].is_string())
            throw Error(where + ": expected an object like {\"prompt\": \"...\", \"max_tokens\": 64}");
        BenchRequest b;
        b.request.prompt_text = j["prompt"].get<std::string>();  // "" starts from BOS alone
        b.request.stop.max_tokens = default_max_tokens;
        if (j.contains("max_tokens") && !j["max_tokens"].is_null()) {
            if (!j["max_tokens"].is_number_integer() || j["max_tokens"].get<int64_t>() < 1 || j["max_tokens"].get<int64_t>() > 1000000)
                throw Error(where + ": \"max_tokens\" must be a positive integer");
            b.request.stop.max_tokens = j["max_tokens"].get<int>();
        }
        b.request.stop.ignore_eos = ignore_eos;
        b.request.sampling = sampling;
        b.request.tag = std::to_string(w.requests.size());
        w.requests.push_back(std::move(b));
    }
    if (w.requests.empty()) throw Error("the prompt file " + path + " holds no prompts");
    w.description = std::to_string(w.requests.size()) + " prompts from " + path;
    return w;
}

Workload synthetic_workload(const SyntheticSpec& spec, const SamplingParams& sampling) {
    if (spec.num_requests < 1) throw cli::UsageError("--num-requests must be at least 1");
    if (spec.vocab_size < 4) throw Error("the model's vocabulary is too small for random prompts");
    std::mt19937_64 rng(spec.seed);
    std::uniform_int_distribution<int32_t> token(3, spec.vocab_size - 1);
    std::vector<int32_t> prefix;
    if (spec.bos_id >= 0) prefix.push_back(spec.bos_id);
    while (int(prefix.size()) < spec.shared_prefix) prefix.push_back(token(rng));
    Workload w;
    for (int i = 0; i < spec.num_requests; ++i) {
        BenchRequest b;
        const int len = std::max(spec.input.draw(rng), int(prefix.size()) + 1);
        std::vector<int32_t> p = spec.shared_prefix > 0 ? prefix : std::vector<int32_t>(prefix.begin(), prefix.begin() + (spec.bos_id >= 0 ? 1 : 0));
        while (int(p.size()) < len) p.push_back(token(rng));
        b.request.prompt_ids = std::move(p);
        b.request.stop.max_tokens = spec.output.draw(rng);
        b.request.stop.ignore_eos = true;
        b.request.sampling = sampling;
        b.request.tag = std::to_string(i);
        w.requests.push_back(std::move(b));
    }
    w.description = std::to_string(spec.num_requests) + " synthetic requests, input " + spec.input.str() + ", output " + spec.output.str() +
                    (spec.shared_prefix > 0 ? ", shared prefix " + std::to_string(spec.shared_prefix) : "");
    return w;
}

void assign_poisson_arrivals(Workload& w, double rate, uint64_t seed) {
    if (!(rate > 0) || std::isinf(rate)) {
        for (auto& r : w.requests) r.arrival_s = 0;
        return;
    }
    std::mt19937_64 rng(seed ^ 0x5851f42d4c957f2dULL);
    std::exponential_distribution<double> gap(rate);
    double t = 0;
    for (auto& r : w.requests) {
        r.arrival_s = t;
        t += gap(rng);
    }
}

}  // namespace folio::bench
