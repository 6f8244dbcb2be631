#include "app/server/completion_route.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <random>

#include "app/server/logprobs_json.h"
#include "app/server/openai_response.h"
#include "app/server/sse_stream.h"
#include "engine/core/error.h"

namespace folio::server {

namespace {

using namespace std::chrono_literals;

std::string new_id(Endpoint endpoint) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    static const char* hex = "0123456789abcdef";
    std::string id = endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-";
    for (int i = 0; i < 24; ++i) id += hex[rng() & 15];
    return id;
}

// The engine request for `api`: prompt tokens computed now, so a prompt that does not fit the
// context is refused with OpenAI's context_length_exceeded before any response starts, and an
// absent max_tokens means "up to the end of the context".
Request engine_request(LoadedModel& lm, const ApiRequest& api) {
    const char* prompt_field = api.endpoint == Endpoint::ChatCompletions ? "messages" : "prompt";
    ProcessedRequest p;
    try {
        std::lock_guard lock(lm.input_mutex);
        p = lm.input.process(api.request);
    } catch (const Error& e) {
        throw bad_field(prompt_field, e.what());
    }
    const int prompt_tokens = int(p.core.prompt_ids.size());
    const int context = lm.model->context_length();
    const int max_tokens = api.max_tokens ? *api.max_tokens : context - prompt_tokens;
    if (prompt_tokens >= context || int64_t(prompt_tokens) + max_tokens > context) {
        std::string msg = "This model's maximum context length is " + std::to_string(context) + " tokens. However, you requested " +
                          std::to_string(int64_t(prompt_tokens) + (api.max_tokens ? *api.max_tokens : 1)) + " tokens (" +
                          std::to_string(prompt_tokens) + " in the " + prompt_field + ", " +
                          (api.max_tokens ? std::to_string(*api.max_tokens) : std::string("at least 1")) +
                          " in the completion). Please reduce the length of the " + prompt_field + " or completion.";
        throw ApiError(400, msg, prompt_field, "context_length_exceeded");
    }
    Request r;
    r.prompt_ids = std::move(p.core.prompt_ids);
    r.sampling = api.request.sampling;
    r.stop = api.request.stop;
    r.stop.max_tokens = max_tokens;
    r.tag = "api";
    return r;
}

// One API request's progress (all its choices), shared by the handler and its stream's content provider.
struct Exchange {
    struct ChoiceState {
        Choice choice;
        int tokens = 0;
        bool finished = false;
        // Logprobs of the tokens not yet sent (streaming) or of all (whole): chat's "content" list,
        // or the completions object.
        nlohmann::ordered_json lp_content = nlohmann::ordered_json::array();
        CompletionLogprobs lp_completion;
        size_t text_offset = 0;
    };
    std::shared_ptr<LoadedModel> lm;
    std::shared_ptr<RequestStream> stream;
    ResponseHeader header;
    std::vector<ChoiceState> choices;
    std::vector<Event> pending;  // events not yet handled
    std::optional<SseStream> sse;  // a streamed answer's framing
    Usage usage;
    bool logprobs = false;  // the request asked for them

    explicit Exchange(std::shared_ptr<LoadedModel> m) : lm(std::move(m)) { ++lm->requests_in_flight; }
    ~Exchange() { --lm->requests_in_flight; }
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;

    bool chat() const { return header.endpoint == Endpoint::ChatCompletions; }
    void add_logprobs(ChoiceState& c, const Event& e) {
        if (!logprobs || !e.logprobs) return;
        if (chat())
            c.lp_content.push_back(chat_logprob_entry(*lm->model->tokenizer, e.token, *e.logprobs));
        else
            c.lp_completion.add(*lm->model->tokenizer, e.token, *e.logprobs, c.text_offset);
    }
    bool has_logprobs(const ChoiceState& c) const { return chat() ? !c.lp_content.empty() : !c.lp_completion.empty(); }
    // The logprobs gathered for `c` since the last call (null when not asked).
    nlohmann::ordered_json take_logprobs(ChoiceState& c) {
        if (!logprobs) return nullptr;
        if (!chat()) return c.lp_completion.take();
        nlohmann::ordered_json out = {{"content", std::move(c.lp_content)}};
        c.lp_content = nlohmann::ordered_json::array();
        return out;
    }

    int index_of(RequestId id) const {
        const auto& ids = stream->ids();
        return int(std::find(ids.begin(), ids.end(), id) - ids.begin());
    }
    bool all_finished() const {
        return std::all_of(choices.begin(), choices.end(), [](const ChoiceState& c) { return c.finished; });
    }
    int total_tokens() const {
        int n = 0;
        for (const auto& c : choices) n += c.tokens;
        return n;
    }
    // Waits for the next events into `pending`.
    void wait() {
        auto evs = stream->wait(100ms);
        for (auto& e : evs) pending.push_back(std::move(e));
    }
    // A choice's last event: its usage share (the prompt is counted once, from the first choice).
    void finish(int i, const Event& e) {
        choices[size_t(i)].finished = true;
        choices[size_t(i)].choice.reason = e.reason;
        if (i == 0) {
            usage.prompt_tokens = e.timings.prompt_tokens;
            usage.cached_prompt_tokens = e.timings.cached_prompt_tokens;
        }
        usage.completion_tokens = total_tokens();
    }
};

// A request the server ended (it let go of the model: unloaded, or another one loaded in the app)
// fails with a 503 saying so: OpenAI's API has no "cancelled" finish, and its clients retry a 503.
bool withdrawn(const Event& e) { return e.kind == Event::Kind::Finished && e.reason == FinishReason::Cancelled; }
ApiError withdrawn_error(const LoadedModel& lm) {
    return ApiError(503, lm.withdrawn_because.empty() ? std::string("the server ended this request") : lm.withdrawn_because);
}

ApiError engine_error(const Event& e, int tokens_so_far) {
    // A request the engine refused before running it (the KV pool cannot hold it) is the client's to
    // change; a failure while running is the server's.
    return tokens_so_far == 0 ? ApiError(400, e.message) : ApiError(500, e.message);
}

void answer_whole(Exchange& x, httplib::Response& res) {
    while (!x.all_finished()) {
        x.wait();
        for (Event& e : x.pending) {
            const int i = x.index_of(e.id);
            if (size_t(i) >= x.choices.size()) continue;
            auto& c = x.choices[size_t(i)];
            c.choice.text += e.text;
            if (e.kind == Event::Kind::Token) {
                ++c.tokens;
                x.add_logprobs(c, e);
                continue;
            }
            if (e.kind == Event::Kind::Error) throw engine_error(e, x.total_tokens());
            if (withdrawn(e)) throw withdrawn_error(*x.lm);
            x.finish(i, e);
        }
        x.pending.clear();
    }
    std::vector<Choice> choices;
    for (auto& c : x.choices) {
        c.choice.logprobs = x.take_logprobs(c);
        choices.push_back(c.choice);
    }
    res.set_content(dump(full_response(x.header, choices, x.usage)), "application/json");
}

// Writes the pending events as SSE (framed by x.sse); false when the client is gone.
bool write_pending(Exchange& x, httplib::DataSink& sink) {
    SseStream& sse = *x.sse;
    std::string out;
    for (Event& e : x.pending) {
        if (sse.ended()) break;
        const int i = x.index_of(e.id);
        if (size_t(i) >= x.choices.size()) continue;
        auto& c = x.choices[size_t(i)];
        if (e.kind == Event::Kind::Token) {
            ++c.tokens;
            x.add_logprobs(c, e);
            // A token whose text does not show yet keeps its logprobs for the next chunk that does.
            if (sse.shows(i, e.text)) out += sse.token(i, e.text, x.take_logprobs(c));
            continue;
        }
        // Headers (200) are gone: the error is an event, as vLLM, llama.cpp and OpenAI's clients expect.
        if (e.kind == Event::Kind::Error) {
            out += sse.error(engine_error(e, x.total_tokens()));
            break;
        }
        if (withdrawn(e)) {
            out += sse.error(withdrawn_error(*x.lm));
            break;
        }
        x.finish(i, e);
        const nlohmann::ordered_json text_lp = sse.shows(i, e.text) ? x.take_logprobs(c) : nlohmann::ordered_json(nullptr);
        // Tokens whose text never showed (an end token, a held tail) bring their logprobs to the closing chunk.
        const nlohmann::ordered_json rest_lp = x.has_logprobs(c) ? x.take_logprobs(c) : nlohmann::ordered_json(nullptr);
        out += sse.finish(i, e.text, e.reason, x.usage, text_lp, rest_lp);
    }
    x.pending.clear();
    return out.empty() || sink.write(out.data(), out.size());
}

void answer_stream(const std::shared_ptr<Exchange>& x, httplib::Response& res) {
    // The status is chosen once the first event is in: a request the engine refuses still gets a
    // plain HTTP error, not a 200 stream that holds only an error.
    while (x->pending.empty()) x->wait();
    if (x->pending.front().kind == Event::Kind::Error) throw engine_error(x->pending.front(), 0);
    if (withdrawn(x->pending.front())) throw withdrawn_error(*x->lm);
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [x](size_t, httplib::DataSink& sink) {
            if (x->pending.empty()) x->wait();
            if (!write_pending(*x, sink)) return false;  // the client went away: the releaser cancels
            if (x->sse->ended()) sink.done();
            return true;
        },
        [x](bool success) {
            if (!success || x->sse->failed() || !x->all_finished()) x->lm->requests.cancel(*x->stream);
        });
}

}  // namespace

void handle_completion(const std::shared_ptr<LoadedModel>& lm, const std::string& model_name, Endpoint endpoint,
                       const httplib::Request& req, httplib::Response& res) {
    ApiRequest api = parse_api_request(req.body, endpoint, lm->model->generation);
    if (!api.model.empty() && api.model != model_name)
        throw ApiError(404, "The model '" + api.model + "' does not exist: this server serves '" + model_name + "' (GET /v1/models)", "model",
                       "model_not_found");
    Request request = engine_request(*lm, api);

    auto x = std::make_shared<Exchange>(lm);
    x->header = {endpoint, new_id(endpoint), int64_t(std::time(nullptr)), model_name};
    x->logprobs = api.request.sampling.logprobs >= 0;
    x->choices.resize(size_t(api.n));
    if (api.stream) x->sse.emplace(x->header, api.n, api.include_usage);
    x->stream = lm->requests.submit(std::move(request), api.n);
    if (!api.stream) {
        try {
            answer_whole(*x, res);
        } catch (...) {
            lm->requests.cancel(*x->stream);
            throw;
        }
        return;
    }
    try {
        answer_stream(x, res);
    } catch (...) {
        lm->requests.cancel(*x->stream);
        throw;
    }
}

}  // namespace folio::server
