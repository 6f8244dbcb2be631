#include "app/bench/front_door_suite.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "app/bench/bench_report.h"
#include "app/bench/report_text.h"
#include "app/bench/step_clock.h"
#include "engine/core/error.h"
#include "engine/client/make_engine.h"
#include "engine/frontdoor/engine.h"
#include "engine/frontdoor/prompt_builder.h"
#include "engine/model/model.h"

namespace folio::bench {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

// A conversation of about `total_words` words in user/assistant exchanges (then the user's next
// question), in plain English-like words so that a real tokenizer meets what it usually does.
std::vector<ChatMessage> conversation(int total_words, uint64_t seed) {
    static const char* const words[] = {
        "the", "engine", "keeps", "every", "stream", "running", "while", "a", "long", "history", "is", "rendered", "and",
        "tokenized", "on", "its", "own", "thread", "so", "nothing", "waits", "for", "template", "of", "this", "chat", "which",
        "has", "grown", "over", "many", "days", "with", "questions", "about", "paged", "attention", "blocks", "cache",
        "prefix", "batch", "scheduler", "tokens", "model", "reply", "again", "then", "more", "could", "you", "explain",
        "why", "how", "it", "works", "in", "detail", "please", "thanks", "sure", "here", "is", "what", "happens", "next"};
    const size_t n = sizeof(words) / sizeof(words[0]);
    std::mt19937_64 rng(seed);
    int left = std::max(2, total_words);
    auto text = [&](int num_words) {
        num_words = std::max(1, std::min(num_words, left));
        left -= num_words;
        std::string s;
        for (int i = 0; i < num_words; ++i) {
            if (i) s += (i % 17 == 0) ? ". " : " ";
            s += words[rng() % n];
        }
        return s + ".";
    };
    std::vector<ChatMessage> m{{"system", "You are a helpful assistant."}};
    while (left > 0) {
        m.push_back({"user", text(20 + int(rng() % 30))});
        m.push_back({"assistant", text(60 + int(rng() % 100))});
    }
    m.push_back({"user", "Summarize the conversation so far."});
    return m;
}

// A chat request whose history, rendered and tokenized, is about `tokens` tokens (the front door's
// work, done here beforehand to size it).
Request history_request(const Model& model, int tokens, int max_tokens, uint64_t seed) {
    Request r;
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    r.stop.ignore_eos = true;
    r.tag = "history";
    int words = 200;
    for (int attempt = 0; attempt < 5; ++attempt) {
        r.messages = conversation(words, seed);
        const double got = double(build_prompt_ids(model, r).size());
        const int next = std::max(2, int(double(words) * double(tokens) / got + 0.5));
        if (next == words) break;
        words = next;
    }
    r.messages = conversation(words, seed);
    return r;
}

std::vector<int32_t> random_prompt(const Model& m, int len, std::mt19937_64& rng) {
    std::uniform_int_distribution<int32_t> tok(3, m.config.vocab_size - 1);
    std::vector<int32_t> p{m.config.bos_token_id >= 0 && m.config.bos_token_id < m.config.vocab_size ? m.config.bos_token_id : 1};
    while (int(p.size()) < len) p.push_back(tok(rng));
    return p;
}

struct Seen {
    Clock::time_point first_token{};
    bool ended = false;
    Event end;
};

// Reads events until `done()` or the deadline; notes first tokens and ends.
template <class F>
void pump(EventQueue& e, std::map<RequestId, Seen>& seen, F done, Clock::time_point deadline) {
    while (!done()) {
        if (Clock::now() > deadline) throw Error("folio-bench --suite frontdoor: the engine did not get there in time");
        for (Event& ev : e.wait(5ms)) {
            Seen& s = seen[ev.id];
            if (ev.kind == Event::Kind::Token && s.first_token == Clock::time_point{}) s.first_token = Clock::now();
            if (ev.kind == Event::Kind::Error) throw Error("folio-bench --suite frontdoor: request failed: " + ev.message);
            if (ev.kind != Event::Kind::Token) {
                s.ended = true;
                s.end = std::move(ev);
            }
        }
    }
}

const char* const kWindows[] = {"before", "input", "after"};

struct RoundResult {
    std::vector<double> intervals[3];  // ms, per window
    double input_ms = 0;
};

RoundResult run_once(const std::shared_ptr<const Model>& model, EngineOptions o, bool on_step_thread, const Request& history,
                     const FrontDoorSuiteOptions& opt, std::mt19937_64& rng) {
    o.input_on_step_thread = on_step_thread;
    StepClock* steps = nullptr;
    const std::unique_ptr<Engine> owned = make_local_engine(model, o, [&](std::unique_ptr<Backend> backend) {
        auto clock = std::make_unique<StepClock>(std::move(backend));
        steps = clock.get();
        return std::unique_ptr<Backend>(std::move(clock));
    });
    Engine& engine = *owned;
    // Every request's events to one queue, read by pump.
    auto events = std::make_shared<EventQueue>();
    const EventSink sink = EventQueue::sink_of(events);
    std::map<RequestId, Seen> seen;
    const Clock::time_point deadline = Clock::now() + 30min;
    auto after = [](Clock::time_point t, double seconds) {
        return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    };

    std::vector<RequestId> streams;
    for (int i = 0; i < opt.streams; ++i) {
        const int len = opt.stream_prompt_len;
        streams.push_back(engine.submit(fixed_length_greedy_request(random_prompt(*model, len, rng), model->context_length() - len), sink));
    }
    pump(*events, seen, [&] {
        for (RequestId id : streams)
            if (seen[id].first_token == Clock::time_point{}) return false;
        return true;
    }, deadline);
    const Clock::time_point warm = Clock::now() + 200ms;
    pump(*events, seen, [&] { return Clock::now() >= warm; }, deadline);

    const Clock::time_point t0 = Clock::now();
    pump(*events, seen, [&] { return Clock::now() >= after(t0, opt.window_s); }, deadline);
    const Clock::time_point t_submit = Clock::now();
    const RequestId h = engine.submit(history, sink);
    // Past the front door it waits in the core (max_num_seqs is the streams'), so that the
    // measurement holds the input processing alone, not the prefill.
    pump(*events, seen, [&] { return seen[h].ended || engine.stats().waiting > 0; }, deadline);
    const Clock::time_point t_queued = Clock::now();
    pump(*events, seen, [&] { return Clock::now() >= after(t_queued, opt.window_s); }, deadline);
    const Clock::time_point t_end = Clock::now();
    engine.cancel(h);
    for (RequestId id : streams) engine.cancel(id);
    pump(*events, seen, [&] {
        if (!seen[h].ended) return false;
        for (RequestId id : streams)
            if (!seen[id].ended) return false;
        return true;
    }, deadline);
    const Event& end = seen[h].end;
    if (end.reason != FinishReason::Cancelled)
        throw Error(std::string("folio-bench --suite frontdoor: the history request ran and ended (") + finish_reason_name(end.reason) +
                    (end.message.empty() ? "" : ": " + end.message) +
                    ") before the measurement was over: the streams reached the end of the model's context first and let it in; "
                    "use a model with a longer context (dummy: models take --context) or a shorter --window-s");

    RoundResult r;
    r.input_ms = end.timings.input_ms;
    const Clock::time_point t_handoff =
        t_submit + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(r.input_ms));
    // Each interval between two step starts goes to the window it overlaps: the request's input
    // processing (submit to hand-off) first; otherwise before the submission or after the hand-off.
    const std::vector<StepTime> s = steps->steps();
    for (size_t i = 1; i < s.size(); ++i) {
        const Clock::time_point a = s[i - 1].start, b = s[i].start;
        int w = -1;
        if (a < t_handoff && b > t_submit) w = 1;
        else if (a >= t0 && b <= t_submit) w = 0;
        else if (a >= t_handoff && b <= t_end) w = 2;
        if (w >= 0) r.intervals[w].push_back(ms_between(a, b));
    }
    return r;
}

}  // namespace

nlohmann::json run_front_door_suite(const std::shared_ptr<const Model>& model, const EngineOptions& engine,
                                    const FrontDoorSuiteOptions& opt) {
    if (opt.rounds < 1 || opt.streams < 1 || opt.history_tokens < 1 || opt.window_s <= 0)
        throw Error("--rounds, --streams, --history-tokens and the window must be positive");
    const Request history = history_request(*model, opt.history_tokens, opt.max_tokens, opt.seed);
    const int history_len = int(build_prompt_ids(*model, history).size());
    if (history_len + opt.max_tokens > model->context_length())
        throw Error("the " + std::to_string(history_len) + "-token history does not fit the model's context of " +
                    std::to_string(model->context_length()) + " tokens; give a dummy model a longer one with --context");

    EngineOptions o = engine;
    o.max_num_seqs = opt.streams;  // the history request waits in the core: its prefill is not measured
    o.max_num_batched_tokens = std::max(o.max_num_batched_tokens, opt.streams);
    if (o.num_kv_blocks == 0 && o.kv_cache_bytes == 0) {
        // Room for the history (the pool must be able to hold it, or the core refuses it) and for
        // every stream to run through the whole measurement.
        const int64_t bs = o.block_size;
        o.num_kv_blocks = (history_len + opt.max_tokens + bs) / bs + int64_t(opt.streams) * std::min<int64_t>(1024, (model->context_length() + bs - 1) / bs);
    }

    std::mt19937_64 rng(opt.seed);
    std::vector<double> intervals[2][3], input_ms[2];
    for (int round = 0; round < opt.rounds; ++round) {
        for (int mode = 0; mode < 2; ++mode) {
            const RoundResult r = run_once(model, o, mode == 1, history, opt, rng);
            for (int w = 0; w < 3; ++w) intervals[mode][w].insert(intervals[mode][w].end(), r.intervals[w].begin(), r.intervals[w].end());
            input_ms[mode].push_back(r.input_ms);
        }
    }

    nlohmann::json j;
    j["model"] = model->name;
    j["quantization"] = model->quantization_name();
    j["tokenizer"] = model->tokenizer ? model->tokenizer->kind() : "";
    j["context"] = model->context_length();
    j["streams"] = opt.streams;
    j["history_messages"] = history.messages.size();
    j["history_tokens"] = history_len;
    j["rounds"] = opt.rounds;
    j["window_s"] = opt.window_s;
    j["kv_blocks"] = o.num_kv_blocks;
    nlohmann::json modes = nlohmann::json::array();
    for (int mode = 0; mode < 2; ++mode) {
        nlohmann::json m;
        m["input_on"] = mode == 0 ? "front-door thread" : "step thread";
        m["input_ms"] = input_ms[mode];
        m["input_ms_median"] = percentile(input_ms[mode], 50);
        nlohmann::json windows = nlohmann::json::array();
        for (int w = 0; w < 3; ++w) {
            const std::vector<double>& v = intervals[mode][w];
            nlohmann::json row;
            row["window"] = kWindows[w];
            row["steps"] = v.size();
            row["p50_ms"] = v.empty() ? 0.0 : percentile(v, 50);
            row["p99_ms"] = v.empty() ? 0.0 : percentile(v, 99);
            row["max_ms"] = v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
            windows.push_back(row);
        }
        m["windows"] = windows;
        modes.push_back(m);
    }
    j["modes"] = modes;
    return j;
}

std::string format_front_door_suite(const nlohmann::json& j) {
    ReportText out(20);
    out.line("folio-bench --suite frontdoor: %s (%s, %s tokenizer, context %d)\n", j["model"].get<std::string>().c_str(),
             j["quantization"].get<std::string>().c_str(), j["tokenizer"].get<std::string>().c_str(), j["context"].get<int>());
    out.line("  %d streams decoding; meanwhile a chat request of %zu messages, %d tokens once rendered and tokenized, is submitted\n",
             j["streams"].get<int>(), j["history_messages"].get<size_t>(), j["history_tokens"].get<int>());
    out.line("  step interval: time between the starts of two consecutive steps, what a running stream waits between tokens\n");
    out.line("  (%d round(s), the two ways alternating; windows: %.1f s before the submission, while its input is processed\n",
             j["rounds"].get<int>(), j["window_s"].get<double>());
    out.line("   (submit to handed to the core), %.1f s after; the request then waits in the core, its prefill not measured)\n",
             j["window_s"].get<double>());
    out.line("  %-20s %-9s %6s %9s %9s %9s\n", "input processed on", "window", "steps", "p50 ms", "p99 ms", "max ms");
    for (const auto& m : j["modes"]) {
        for (const auto& w : m["windows"])
            out.line("  %-20s %-9s %6zu %9.2f %9.2f %9.2f\n", m["input_on"].get<std::string>().c_str(), w["window"].get<std::string>().c_str(),
                     w["steps"].get<size_t>(), w["p50_ms"].get<double>(), w["p99_ms"].get<double>(), w["max_ms"].get<double>());
        out.line("  %-20s input processing of the history (template + tokens): %.1f ms (median)\n", m["input_on"].get<std::string>().c_str(),
                 m["input_ms_median"].get<double>());
    }
    return out.text;
}

}  // namespace folio::bench
