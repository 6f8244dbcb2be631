#include "app/server/completion_route.h"

#include <chrono>
#include <random>

#include "app/server/openai_response.h"
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

// One request's progress, shared by the handler and its stream's content provider.
struct Exchange {
    std::shared_ptr<LoadedModel> lm;
    std::shared_ptr<RequestStream> stream;
    ResponseHeader header;
    bool include_usage = false;
    std::vector<Event> pending;  // events not yet written
    std::string text;
    Usage usage;
    bool role_sent = false;
    bool finished = false;  // the last event has come (and been written, when streaming)

    // Waits for the next events into `pending`.
    void wait() {
        auto evs = stream->wait(100ms);
        for (auto& e : evs) pending.push_back(std::move(e));
    }
};

ApiError engine_error(const Event& e, int tokens_so_far) {
    // A request the engine refused before running it (the KV pool cannot hold it) is the client's to
    // change; a failure while running is the server's.
    return tokens_so_far == 0 ? ApiError(400, e.message) : ApiError(500, e.message);
}

void fill_usage(Usage& u, const Event& last, int completion_tokens) {
    u.prompt_tokens = last.timings.prompt_tokens;
    u.cached_prompt_tokens = last.timings.cached_prompt_tokens;
    u.completion_tokens = completion_tokens;
}

void answer_whole(Exchange& x, httplib::Response& res) {
    for (;;) {
        x.wait();
        for (Event& e : x.pending) {
            if (e.kind == Event::Kind::Token) {
                ++x.usage.completion_tokens;
                x.text += e.text;
                continue;
            }
            if (e.kind == Event::Kind::Error) throw engine_error(e, x.usage.completion_tokens);
            x.text += e.text;
            fill_usage(x.usage, e, x.usage.completion_tokens);
            res.set_content(dump(full_response(x.header, x.text, e.reason, x.usage)), "application/json");
            return;
        }
        x.pending.clear();
    }
}

// Writes the pending events as SSE; false when the client is gone.
bool write_pending(Exchange& x, httplib::DataSink& sink) {
    std::string out;
    for (Event& e : x.pending) {
        if (e.kind == Event::Kind::Token) {
            ++x.usage.completion_tokens;
            if (e.text.empty() && x.role_sent) continue;  // nothing to show yet (a partial character, a possible stop string)
            out += sse_event(stream_chunk(x.header, e.text, !x.role_sent, std::nullopt, x.include_usage));
            x.role_sent = true;
            continue;
        }
        x.finished = true;
        if (e.kind == Event::Kind::Error) {
            // Headers (200) are gone: the error is an event, as llama.cpp and OpenAI's clients expect.
            out += sse_event(error_body(engine_error(e, x.usage.completion_tokens)));
            break;
        }
        fill_usage(x.usage, e, x.usage.completion_tokens);
        if (!e.text.empty() || !x.role_sent) {
            out += sse_event(stream_chunk(x.header, e.text, !x.role_sent, std::nullopt, x.include_usage));
            x.role_sent = true;
        }
        out += sse_event(stream_chunk(x.header, "", false, e.reason, x.include_usage));
        if (x.include_usage) out += sse_event(usage_chunk(x.header, x.usage));
        out += sse_done();
        break;
    }
    x.pending.clear();
    return out.empty() || sink.write(out.data(), out.size());
}

void answer_stream(const std::shared_ptr<Exchange>& x, httplib::Response& res) {
    // The status is chosen once the first event is in: a request the engine refuses still gets a
    // plain HTTP error, not a 200 stream that holds only an error.
    while (x->pending.empty()) x->wait();
    if (x->pending.front().kind == Event::Kind::Error) throw engine_error(x->pending.front(), 0);
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream",
        [x](size_t, httplib::DataSink& sink) {
            if (x->pending.empty()) x->wait();
            if (!write_pending(*x, sink)) return false;  // the client went away: the releaser cancels
            if (x->finished) sink.done();
            return true;
        },
        [x](bool success) {
            if (!success || !x->finished) x->lm->router->cancel(x->stream->id());
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

    auto x = std::make_shared<Exchange>();
    x->lm = lm;
    x->header = {endpoint, new_id(endpoint), int64_t(std::time(nullptr)), model_name};
    x->include_usage = api.include_usage;
    x->stream = lm->router->submit(std::move(request));
    if (!api.stream) {
        try {
            answer_whole(*x, res);
        } catch (...) {
            lm->router->cancel(x->stream->id());
            throw;
        }
        return;
    }
    try {
        answer_stream(x, res);
    } catch (...) {
        lm->router->cancel(x->stream->id());
        throw;
    }
}

}  // namespace folio::server
