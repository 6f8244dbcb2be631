#include "engine/remote/remote_engine.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/core/error.h"
#include "engine/remote/openai_wire.h"
#include "engine/remote/sse_stream.h"

namespace folio::remote {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

// What one HTTP exchange gives back; the body of a non-2xx answer is kept for its message.
struct Exchange {
    long status = 0;
    CURLcode rc = CURLE_OK;
    std::string curl_error;
    std::string error_body;
};

struct Transfer {
    std::function<bool(const char*, size_t)> on_body;  // 2xx body bytes; false stops the transfer
    const std::atomic<bool>* cancel = nullptr;
    CURL* curl = nullptr;
    Exchange* exchange = nullptr;
};

size_t write_cb(char* data, size_t, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    if (t->exchange->status == 0) curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->exchange->status);
    if (t->exchange->status < 200 || t->exchange->status >= 300) {
        if (t->exchange->error_body.size() < 65536) t->exchange->error_body.append(data, n);
        return n;
    }
    if (t->cancel && t->cancel->load()) return 0;
    return t->on_body(data, n) ? n : 0;
}

int progress_cb(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    return t->cancel && t->cancel->load() ? 1 : 0;
}

Exchange http_exchange(const RemoteOptions& o, const std::string& url, const std::string* post_body, Transfer& t) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    Exchange ex;
    CURL* curl = curl_easy_init();
    if (!curl) throw Error("libcurl could not start a transfer");
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Accept: text/event-stream, application/json");
    if (post_body) headers = curl_slist_append(headers, "Content-Type: application/json");
    if (!o.api_key.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + o.api_key).c_str());
    t.curl = curl;
    t.exchange = &ex;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // the key must not follow a redirect elsewhere
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, o.stall_timeout_s);
    curl_easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress_cb);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    if (post_body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(post_body->size()));
    }
    ex.rc = curl_easy_perform(curl);
    if (ex.status == 0) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &ex.status);
    ex.curl_error = errbuf[0] ? errbuf : curl_easy_strerror(ex.rc);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return ex;
}

// A non-2xx answer as a sentence: who answered what, and for 401 what to check.
std::string refusal_message(const std::string& base, const Exchange& ex) {
    std::string m = "the server at " + base + " answered HTTP " + std::to_string(ex.status) + ": " + error_message_of(ex.error_body);
    if (ex.status == 401) m += " (check --api-key)";
    if (ex.status == 404) m += " (check --endpoint and --remote-model)";
    return m;
}

std::string unreachable_message(const std::string& base, const Exchange& ex) {
    return "cannot reach the server at " + base + ": " + ex.curl_error + " (is it running, and is --endpoint right?)";
}

}  // namespace

std::string normalize_base_url(const std::string& endpoint) {
    std::string u = endpoint;
    if (u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0)
        throw Error("--endpoint needs an http:// or https:// URL (e.g. http://127.0.0.1:8080), got '" + endpoint + "'");
    while (!u.empty() && u.back() == '/') u.pop_back();
    if (u.size() < 3 || u.compare(u.size() - 3, 3, "/v1") != 0) u += "/v1";
    return u;
}

struct RemoteEngine::Impl {
    RemoteOptions options;
    std::string base;
    EngineModelInfo info;

    mutable std::mutex mu;
    RequestId next_id = 1;
    std::map<RequestId, std::shared_ptr<std::atomic<bool>>> cancels;  // running requests
    // Each reply id's sink, put in by submit before the request's thread starts, taken out at the
    // reply's last event.
    std::map<RequestId, std::shared_ptr<const EventSink>> sinks;
    std::vector<std::thread> threads;
    // What this client has seen (stats()).
    int64_t prompt_tokens = 0, generated_tokens = 0;

    // On the request's own thread: its events come one at a time, in order.
    void emit(Event ev) {
        std::shared_ptr<const EventSink> sink;
        {
            std::lock_guard lock(mu);
            if (ev.kind != Event::Kind::Token) {
                // The n replies share one prompt: counted with the first reply's end (the first id is
                // the one in `cancels`).
                if (cancels.erase(ev.id)) prompt_tokens += ev.timings.prompt_tokens - ev.timings.cached_prompt_tokens;
                generated_tokens += ev.timings.generated_tokens;
            }
            const auto it = sinks.find(ev.id);
            if (it != sinks.end()) {
                sink = it->second;
                if (ev.kind != Event::Kind::Token) sinks.erase(it);
            }
        }
        if (sink && *sink) (*sink)(ev);
    }

    void run(RequestId id, Request request, std::shared_ptr<std::atomic<bool>> cancel, Clock::time_point t0);
};

void RemoteEngine::Impl::run(RequestId id, Request request, std::shared_ptr<std::atomic<bool>> cancel, Clock::time_point t0) {
    // n replies come as choices 0..n-1 of one stream; reply i is engine id id + i (as locally), and
    // each gets its own end event.
    const int n = std::max(1, request.n);
    std::vector<Event> ends(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        ends[size_t(i)].id = id + RequestId(i);
        ends[size_t(i)].kind = Event::Kind::Error;
        ends[size_t(i)].reason = FinishReason::Error;
    }
    WireRequest wire;
    try {
        wire = to_wire(request, options.model);
    } catch (const Error& e) {
        for (Event& end : ends) {
            end.message = e.what();
            emit(std::move(end));
        }
        return;
    }

    struct Reply {
        int chunks = 0;
        std::optional<FinishReason> finish;
        std::string finish_name;
        Clock::time_point first{}, last{};
    };
    std::vector<Reply> replies(static_cast<size_t>(n));
    bool done = false;  // [DONE] seen
    std::string stream_error;
    bool has_usage = false;
    int prompt_tokens = 0, cached_prompt_tokens = 0, completion_tokens = 0;
    SseStream sse([&](const std::string& data) {
        if (data == "[DONE]") {
            done = true;
            return;
        }
        WireChunk c = parse_chunk(data);
        if (!c.error.empty()) {
            stream_error = c.error;
            return;
        }
        if (c.has_usage) {
            has_usage = true;
            prompt_tokens = c.prompt_tokens;
            cached_prompt_tokens = c.cached_prompt_tokens;
            completion_tokens = c.completion_tokens;
        }
        for (WireChoice& ch : c.choices) {
            if (ch.index < 0 || ch.index >= n) {
                stream_error = "a choice with index " + std::to_string(ch.index) + " for a request of " + std::to_string(n) + " replies";
                return;
            }
            Reply& r = replies[size_t(ch.index)];
            if (ch.has_text && !ch.text.empty()) {  // a role-only or empty delta is no token
                r.last = Clock::now();
                if (r.chunks++ == 0) r.first = r.last;
                Event ev;
                ev.id = id + RequestId(ch.index);
                ev.kind = Event::Kind::Token;
                ev.text = std::move(ch.text);
                emit(std::move(ev));
            }
            if (ch.finish) {
                r.finish = ch.finish;
                r.finish_name = ch.finish_name;
            }
        }
    });
    Transfer t;
    t.cancel = cancel.get();
    std::string parse_error;
    t.on_body = [&](const char* data, size_t len) {
        try {
            sse.feed(data, len);
        } catch (const Error& e) {
            parse_error = e.what();
            return false;
        }
        return !done && stream_error.empty();
    };
    const Exchange ex = http_exchange(options, base + wire.path, &wire.body, t);

    const bool cut = ex.rc != CURLE_OK && ex.rc != CURLE_WRITE_ERROR && !done;
    for (int i = 0; i < n; ++i) {
        Event& end = ends[size_t(i)];
        const Reply& r = replies[size_t(i)];
        const std::string partial = r.chunks > 0 ? " after " + std::to_string(r.chunks) + " chunks of text (the text so far is kept)" : "";
        const std::string which = n > 1 ? " (reply " + std::to_string(i) + " of " + std::to_string(n) + ")" : "";
        if (cancel->load()) {
            end.kind = Event::Kind::Finished;
            end.reason = FinishReason::Cancelled;
        } else if (!parse_error.empty()) {
            end.message = parse_error + partial;
        } else if (!stream_error.empty()) {
            end.message = "the server at " + base + " reported an error mid-reply" + which + ": " + stream_error + partial;
        } else if (ex.status != 0 && (ex.status < 200 || ex.status >= 300)) {
            end.message = refusal_message(base, ex);
        } else if (ex.rc != CURLE_OK && ex.rc != CURLE_WRITE_ERROR && ex.status == 0) {
            end.message = unreachable_message(base, ex);
        } else if (!r.finish && !cut && r.chunks == 0 && n > 1) {
            // A server without the API's n (llama.cpp's answers one choice) says nothing of the others.
            end.message = "the server at " + base + " sent no reply " + std::to_string(i) + " of the " + std::to_string(n) +
                          " asked for: it may not support n (several replies to one prompt)";
        } else if (!r.finish || cut) {
            // Cut before the reply ended: a server that died, a dropped connection, a stream cut short.
            end.message = "the connection to " + base + " broke mid-reply" + which + partial + ": " +
                          (ex.rc != CURLE_OK ? ex.curl_error : std::string("the stream ended without a finish reason"));
        } else if (*r.finish == FinishReason::Error) {
            end.message = "the server at " + base + " ended the reply" + which + " with finish_reason '" + r.finish_name + "'";
        } else {
            end.kind = Event::Kind::Finished;
            end.reason = *r.finish;
        }
        RequestTimings& tm = end.timings;
        if (has_usage) {
            tm.prompt_tokens = prompt_tokens;
            tm.cached_prompt_tokens = cached_prompt_tokens;
            // The usage counts every reply's tokens together: one reply's are its own only when n = 1.
            if (n == 1) tm.generated_tokens = completion_tokens;
        }
        if (r.chunks > 0) {
            tm.ttft_ms = ms_between(t0, r.first);
            if (tm.generated_tokens == 0) tm.generated_tokens = r.chunks;
            const double decode_ms = ms_between(r.first, r.last);
            if (tm.generated_tokens > 1 && decode_ms > 0) tm.decode_tok_s = (tm.generated_tokens - 1) / (decode_ms / 1000.0);
        }
        emit(std::move(end));
    }
}

std::vector<ServedModel> list_served_models(const RemoteOptions& options) {
    const std::string base = normalize_base_url(options.endpoint);
    std::string body;
    Transfer t;
    t.on_body = [&body](const char* d, size_t n) {
        if (body.size() > (8u << 20)) return false;
        body.append(d, n);
        return true;
    };
    const Exchange ex = http_exchange(options, base + "/models", nullptr, t);
    if (ex.status == 0 || (ex.rc != CURLE_OK && ex.status < 300)) throw Error(unreachable_message(base, ex));
    if (ex.status < 200 || ex.status >= 300) throw Error(refusal_message(base, ex));
    const auto j = nlohmann::json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.contains("data") || !j["data"].is_array())
        throw Error("the server at " + base + " answered /models with something that is not a model list; name one with --remote-model");
    std::vector<ServedModel> models;
    for (const auto& m : j["data"]) {
        if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
        ServedModel sm;
        sm.id = m["id"].get<std::string>();
        // vLLM and folio-server say max_model_len; others say nothing of the context.
        if (m.contains("max_model_len") && m["max_model_len"].is_number_integer()) sm.max_model_len = m["max_model_len"].get<int>();
        models.push_back(std::move(sm));
    }
    return models;
}

std::vector<std::string> list_models(const RemoteOptions& options) {
    std::vector<std::string> ids;
    for (ServedModel& m : list_served_models(options)) ids.push_back(std::move(m.id));
    return ids;
}

RemoteEngine::RemoteEngine(RemoteOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->base = normalize_base_url(options.endpoint);
    impl_->options = std::move(options);
    std::vector<ServedModel> served;
    if (impl_->options.model.empty()) {
        served = list_served_models(impl_->options);
        if (served.empty()) throw Error("the server at " + impl_->base + " lists no model; name one with --remote-model");
        impl_->options.model = served.front().id;
    } else {
        // Only for the context length: a server that does not answer fails each request instead.
        try {
            served = list_served_models(impl_->options);
        } catch (const Error&) {
        }
    }
    EngineModelInfo& info = impl_->info;
    info.spec = "remote:" + impl_->base;
    info.name = impl_->options.model;
    info.architecture = "remote";
    info.quantization = "as served";
    info.backend = "remote";
    info.device = impl_->base;
    info.remote = true;
    for (const ServedModel& m : served)
        if (m.id == impl_->options.model) info.context_length = m.max_model_len;
}

RemoteEngine::~RemoteEngine() {
    std::vector<std::thread> threads;
    {
        std::lock_guard lock(impl_->mu);
        for (auto& [id, flag] : impl_->cancels) flag->store(true);
        threads.swap(impl_->threads);
    }
    for (auto& th : threads) th.join();
}

RequestId RemoteEngine::submit(Request request, EventSink sink) {
    const auto t0 = Clock::now();
    auto flag = std::make_shared<std::atomic<bool>>(false);
    auto shared_sink = std::make_shared<const EventSink>(std::move(sink));
    std::lock_guard lock(impl_->mu);
    const RequestId id = impl_->next_id;
    const int n = std::max(1, request.n);
    impl_->next_id += RequestId(n);  // reply i of n is id + i, as locally
    for (int i = 0; i < n; ++i) impl_->sinks[id + RequestId(i)] = shared_sink;  // before its thread starts
    impl_->cancels[id] = flag;  // the first id cancels every reply
    impl_->threads.emplace_back([this, id, flag, t0, r = std::move(request)]() mutable { impl_->run(id, std::move(r), flag, t0); });
    return id;
}

void RemoteEngine::cancel(RequestId id) {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->cancels.find(id); it != impl_->cancels.end()) it->second->store(true);
}

RequestId RemoteEngine::fork(RequestId parent, const SamplingParams&, EventSink sink) {
    RequestId id = 0;
    {
        std::lock_guard lock(impl_->mu);
        id = impl_->next_id++;
        impl_->sinks[id] = std::make_shared<const EventSink>(std::move(sink));
    }
    Event ev;
    ev.id = id;
    ev.kind = Event::Kind::Error;
    ev.reason = FinishReason::Error;
    ev.message = "cannot fork request " + std::to_string(parent) + ": " + describe() +
                 " cannot continue a reply under other sampling (an OpenAI-compatible server has no such call)";
    // On a thread of its own, as every event of this client: never on the caller's.
    std::lock_guard lock(impl_->mu);
    impl_->threads.emplace_back([this, ev = std::move(ev)]() mutable { impl_->emit(std::move(ev)); });
    return id;
}

const EngineModelInfo& RemoteEngine::model_info() const { return impl_->info; }

EngineStats RemoteEngine::stats() const {
    EngineStats s;
    s.backend = "remote";
    s.device_name = impl_->base;
    std::lock_guard lock(impl_->mu);
    s.running = int(impl_->cancels.size());
    s.total_prompt_tokens = impl_->prompt_tokens;
    s.total_generated_tokens = impl_->generated_tokens;
    return s;
}

const std::string& RemoteEngine::model() const { return impl_->options.model; }
const std::string& RemoteEngine::base_url() const { return impl_->base; }
std::string RemoteEngine::describe() const { return "remote " + impl_->options.model + " at " + impl_->base; }

}  // namespace folio::remote
