#include "app/server/api_requests.h"

namespace folio::server {

using Clock = std::chrono::steady_clock;

std::vector<Event> RequestStream::wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !events_.empty(); });
    std::vector<Event> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
    events_.clear();
    return out;
}

void RequestStream::push(const Event& e) {
    {
        std::lock_guard lock(mutex_);
        events_.push_back(e);
    }
    cv_.notify_one();
}

ApiRequests::ApiRequests(EngineClient& engine, ServerMetrics* metrics) : engine_(engine), tap_(std::make_shared<MetricsTap>(metrics)) {}

ApiRequests::~ApiRequests() { tap_->detach(); }

namespace {

// One API request's sink state, on the engine's thread (one call at a time per request) but for
// `mutex`, which submit holds until the ids are known: the sink never sees an event before them.
struct Metered {
    std::mutex mutex;
    RequestId first = 0;
    Clock::time_point submitted;
    struct Reply {
        Clock::time_point last_token;
        int tokens = 0;
    };
    std::unordered_map<RequestId, Reply> replies;
};

}  // namespace

std::shared_ptr<RequestStream> ApiRequests::submit(Request request, int n) {
    auto stream = std::make_shared<RequestStream>();
    auto state = std::make_shared<Metered>();
    const std::shared_ptr<MetricsTap> tap = tap_;
    const std::shared_ptr<Live> live = live_;
    EventSink sink = [stream, state, tap, live](const Event& e) {
        const auto now = Clock::now();
        {
            std::lock_guard lock(state->mutex);
            Metered::Reply& r = state->replies[e.id];
            if (e.kind == Event::Kind::Token) {
                tap->record([&](ServerMetrics& m) {
                    if (r.tokens == 0)
                        m.observe_first_token(std::chrono::duration<double>(now - state->submitted).count());
                    else
                        m.observe_inter_token(std::chrono::duration<double>(now - r.last_token).count());
                });
                ++r.tokens;
                r.last_token = now;
            } else {
                // The n replies share one prefill: their prompt is counted once, with the first.
                const bool first = e.id == state->first;
                tap->record([&](ServerMetrics& m) {
                    m.observe_finished(e.kind == Event::Kind::Error ? FinishReason::Error : e.reason,
                                       std::chrono::duration<double>(now - state->submitted).count(),
                                       first ? e.timings.prompt_tokens : 0);
                });
                std::lock_guard live_lock(live->mutex);
                const auto it = live->replies_left.find(state->first);
                if (it != live->replies_left.end() && --it->second <= 0) live->replies_left.erase(it);
            }
        }
        stream->push(e);  // outside the lock: the handler's thread takes the stream's own
    };
    request.n = n;
    const int replies = num_reply_ids(request);
    std::lock_guard lock(state->mutex);
    state->submitted = Clock::now();
    const RequestId first = engine_.submit(std::move(request), std::move(sink));
    state->first = first;
    for (int i = 0; i < replies; ++i) stream->ids_.push_back(first + RequestId(i));
    std::lock_guard live_lock(live_->mutex);
    live_->replies_left[first] = replies;
    return stream;
}

void ApiRequests::cancel(const RequestStream& stream) {
    if (!stream.ids().empty()) engine_.cancel(stream.ids().front());  // the first id cancels every reply
}

void ApiRequests::cancel_all() {
    std::vector<RequestId> firsts;
    {
        std::lock_guard lock(live_->mutex);
        for (const auto& [id, left] : live_->replies_left) firsts.push_back(id);
    }
    for (RequestId id : firsts) engine_.cancel(id);
}

size_t ApiRequests::in_flight() const {
    std::lock_guard lock(live_->mutex);
    size_t replies = 0;
    for (const auto& [id, left] : live_->replies_left) replies += size_t(left);
    return replies;
}

}  // namespace folio::server
