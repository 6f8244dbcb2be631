// The front door around the core, threaded (Engine) and single-threaded (SyncEngine), on the fake
// backend: running streams keep stepping while a request's template and tokens are being made (and
// stall when that work is put on the step thread), cancel during input processing, rejections in
// submission order, stop strings whose extra tokens the core already sampled never show, every
// request's events in order under many threads, timings counted from submit, and forks.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "engine/frontdoor/engine.h"
#include "engine/frontdoor/sync_engine.h"
#include "engine/tokenizer/byte_tokenizer.h"
#include "tests/engine/runtime/fake_backend.h"
#include "tests/support/queued_client.h"

namespace folio {
namespace {

using namespace std::chrono_literals;
using test::Context;
using test::FakeBackend;

// A byte tokenizer whose encode() (and token_kind(), which the detokenizer calls for every token)
// can be held shut: the test then knows the front door is in the middle of a request's input
// processing (the output thread in the middle of a token).
class GatedTokenizer final : public Tokenizer {
public:
    explicit GatedTokenizer(int vocab) : inner_(vocab) {}

    void close() {
        std::lock_guard lock(mu_);
        open_ = false;
    }
    void open() {
        {
            std::lock_guard lock(mu_);
            open_ = true;
        }
        cv_.notify_all();
    }
    // Waits until some encode() is held at the gate.
    bool wait_held(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, timeout, [&] { return held_ > 0; });
    }
    int encodes() const {
        std::lock_guard lock(mu_);
        return encodes_;
    }
    // The same for decoding (the output thread's detokenizer).
    void close_decode() {
        std::lock_guard lock(mu_);
        decode_open_ = false;
    }
    void open_decode() {
        {
            std::lock_guard lock(mu_);
            decode_open_ = true;
        }
        cv_.notify_all();
    }
    bool wait_decode_held(std::chrono::milliseconds timeout) {
        std::unique_lock lock(mu_);
        return cv_.wait_for(lock, timeout, [&] { return decode_held_ > 0; });
    }

    std::vector<int> encode(std::string_view text) const override {
        gate();
        return inner_.encode(text);
    }
    std::vector<int> encode_without_dummy_prefix(std::string_view text) const override {
        gate();
        return inner_.encode_without_dummy_prefix(text);
    }
    std::string decode(const std::vector<int>& ids) const override { return inner_.decode(ids); }
    std::string token_bytes(int id) const override { return inner_.token_bytes(id); }
    TokenKind token_kind(int id) const override {
        decode_gate();
        return inner_.token_kind(id);
    }
    LeadingSpaceRule leading_space_rule() const override { return inner_.leading_space_rule(); }
    std::string piece(int id) const override { return inner_.piece(id); }
    int piece_to_id(std::string_view piece) const override { return inner_.piece_to_id(piece); }
    int vocab_size() const override { return inner_.vocab_size(); }
    bool is_control(int id) const override { return inner_.is_control(id); }
    int bos_id() const override { return inner_.bos_id(); }
    int eos_id() const override { return inner_.eos_id(); }
    int unk_id() const override { return inner_.unk_id(); }
    std::vector<int> special_token_ids() const override { return inner_.special_token_ids(); }
    std::string kind() const override { return "gated bytes"; }

private:
    void gate() const {
        std::unique_lock lock(mu_);
        ++encodes_;
        ++held_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return open_; });
        --held_;
    }
    void decode_gate() const {
        std::unique_lock lock(mu_);
        ++decode_held_;
        cv_.notify_all();
        cv_.wait(lock, [&] { return decode_open_; });
        --decode_held_;
    }
    ByteTokenizer inner_;
    mutable std::mutex mu_;
    mutable std::condition_variable cv_;
    mutable int held_ = 0, encodes_ = 0, decode_held_ = 0;
    bool open_ = true, decode_open_ = true;
};

struct Rig {
    std::shared_ptr<GatedTokenizer> tokenizer;
    FakeBackend* fake = nullptr;
    std::unique_ptr<test::QueuedClient<Engine>> engine;  // every request's events to one queue
};

Rig make_engine(EngineOptions o = {}, FakeBackend::NextFn next = test::hashed_letter, int context = 256) {
    Rig s;
    auto model = test::fake_model(context);
    s.tokenizer = std::make_shared<GatedTokenizer>(300);
    model->tokenizer = s.tokenizer;
    if (o.num_kv_blocks == 0) o.num_kv_blocks = 64;
    auto backend = std::make_unique<FakeBackend>(300, std::move(next));
    s.fake = backend.get();
    s.engine = std::make_unique<test::QueuedClient<Engine>>(std::make_unique<Engine>(model, std::move(backend), o));
    return s;
}

Request ids_request(std::vector<int32_t> prompt, int max_tokens) {
    Request r;
    r.prompt_ids = std::move(prompt);
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

Request chat_request(const std::string& text, int max_tokens) {
    Request r;
    r.messages = {{"user", text}};
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

// Scripted model: the generated text from a string (byte ids), then 'z' forever.
FakeBackend::NextFn scripted(std::string script, int prompt_len) {
    return [script, prompt_len](const Context& ctx) {
        const size_t i = ctx.size() - size_t(prompt_len);
        return i < script.size() ? int32_t(uint8_t(script[i]) + 3) : int32_t('z' + 3);
    };
}

struct Stream {
    std::vector<int32_t> ids;
    std::string text;
    int ends = 0;
    Event end;
};

void absorb(const Event& ev, std::map<RequestId, Stream>& out) {
    Stream& s = out[ev.id];
    EXPECT_EQ(s.ends, 0) << "event after the end of request " << ev.id;
    s.text += ev.text;
    if (ev.kind == Event::Kind::Token) {
        s.ids.push_back(ev.token);
    } else {
        ++s.ends;
        s.end = ev;
    }
}

// Polls until every id in `ids` has ended (or a generous deadline passes); every event also lands
// in `order`.
void collect(test::QueuedClient<Engine>& e, const std::set<RequestId>& ids, std::map<RequestId, Stream>& out, std::vector<Event>* order = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    auto done = [&] {
        for (RequestId id : ids)
            if (out[id].ends == 0) return false;
        return true;
    };
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        for (Event& ev : e.wait_events(200ms)) {
            absorb(ev, out);
            if (order) order->push_back(std::move(ev));
        }
    }
}

int64_t steps_after(test::QueuedClient<Engine>& e, std::chrono::milliseconds wait) {
    std::this_thread::sleep_for(wait);
    return e.stats().steps;
}

// A stream that keeps stepping for seconds: 1000 tokens of context, a millisecond a step.
Rig make_streaming_engine(EngineOptions o = {}) {
    o.num_kv_blocks = 160;
    Rig s = make_engine(o, test::hashed_letter, /*context=*/1024);
    s.fake->before_forward = [] { std::this_thread::sleep_for(1ms); };
    return s;
}

TEST(FrontDoor, StreamsKeepSteppingWhileARequestIsBeingTokenized) {
    Rig s = make_streaming_engine();
    Request stream = ids_request({1, 5, 6, 7}, 100000);
    stream.stop.ignore_eos = true;
    const RequestId running = s.engine->submit(stream);
    while (s.engine->stats().total_generated_tokens < 3) std::this_thread::sleep_for(1ms);

    s.tokenizer->close();
    const RequestId chat = s.engine->submit(chat_request("hello", 4));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    // The front door is stuck in the middle of the chat request; the step loop is not.
    const int64_t before = s.engine->stats().steps;
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (s.engine->stats().steps < before + 20 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    EXPECT_GE(s.engine->stats().steps, before + 20);
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {chat}, out);
    EXPECT_EQ(out[chat].end.reason, FinishReason::Length);
    EXPECT_EQ(out[chat].ids.size(), 4u);
    s.engine->cancel(running);
    collect(*s.engine, {running}, out);
    EXPECT_EQ(out[running].end.reason, FinishReason::Cancelled);
}

TEST(FrontDoor, InputProcessingOnTheStepThreadStallsEveryStream) {
    // The contrast the front door exists for (EngineOptions::input_on_step_thread, for benchmarks).
    EngineOptions o;
    o.input_on_step_thread = true;
    Rig s = make_streaming_engine(o);
    Request stream = ids_request({1, 5, 6, 7}, 100000);
    stream.stop.ignore_eos = true;
    const RequestId running = s.engine->submit(stream);
    while (s.engine->stats().total_generated_tokens < 3) std::this_thread::sleep_for(1ms);

    s.tokenizer->close();
    const RequestId chat = s.engine->submit(chat_request("hello", 4));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    const int64_t held_at = s.engine->stats().steps;
    EXPECT_EQ(steps_after(*s.engine, 100ms), held_at);  // the step thread is the one held
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {chat}, out);
    EXPECT_EQ(out[chat].ids.size(), 4u);
    EXPECT_GT(s.engine->stats().steps, held_at);
    s.engine->cancel(running);
    collect(*s.engine, {running}, out);
}

TEST(FrontDoor, ACancelDuringInputProcessingEndsTheRequestAtOnceAndItNeverReachesTheCore) {
    Rig s = make_engine();
    s.tokenizer->close();
    const RequestId held = s.engine->submit(chat_request("a long history", 5));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    const RequestId queued = s.engine->submit(chat_request("behind it", 5));
    s.engine->cancel(held);
    s.engine->cancel(queued);
    // Both end while the front door is still busy with the first one.
    std::map<RequestId, Stream> out;
    collect(*s.engine, {held, queued}, out);
    for (RequestId id : {held, queued}) {
        EXPECT_EQ(out[id].ends, 1);
        EXPECT_EQ(out[id].end.kind, Event::Kind::Finished);
        EXPECT_EQ(out[id].end.reason, FinishReason::Cancelled);
        EXPECT_TRUE(out[id].ids.empty());
    }
    EXPECT_EQ(s.tokenizer->encodes(), 1);  // the queued one was never processed
    s.tokenizer->open();
    const RequestId after = s.engine->submit(ids_request({1, 5, 6}, 3));
    collect(*s.engine, {after}, out);
    EXPECT_EQ(out[after].ids.size(), 3u);
    EXPECT_EQ(s.engine->stats().total_prompt_tokens, 3);  // the cancelled ones never reached the core
    EXPECT_EQ(out[held].ends, 1);  // nothing more came for them
    EXPECT_EQ(out[queued].ends, 1);
    s.engine->cancel(held);  // finished: ignored
    EXPECT_TRUE(s.engine->wait_events(50ms).empty());
}

TEST(FrontDoor, ARejectedRequestGetsItsErrorInSubmissionOrder) {
    Rig s = make_engine();
    s.tokenizer->close();
    const RequestId a = s.engine->submit(chat_request("first", 3));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    const RequestId bad = s.engine->submit(Request{});
    Request bad_stop = ids_request({1, 5}, 3);
    bad_stop.stop.stop_strings = {""};
    const RequestId bad2 = s.engine->submit(bad_stop);
    const RequestId c = s.engine->submit(ids_request({1, 5, 6}, 3));
    // Behind the held request, nothing of the later ones comes out.
    EXPECT_TRUE(s.engine->wait_events(50ms).empty());
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    std::vector<Event> order;
    collect(*s.engine, {a, bad, bad2, c}, out, &order);
    EXPECT_EQ(out[bad].end.kind, Event::Kind::Error);
    EXPECT_NE(out[bad].end.message.find("no prompt"), std::string::npos) << out[bad].end.message;
    EXPECT_NE(out[bad2].end.message.find("stop string must not be empty"), std::string::npos) << out[bad2].end.message;
    EXPECT_EQ(out[a].ids.size(), 3u);
    EXPECT_EQ(out[c].ids.size(), 3u);
    auto first_of = [&](RequestId id) {
        for (size_t i = 0; i < order.size(); ++i)
            if (order[i].id == id) return i;
        return order.size();
    };
    EXPECT_LT(first_of(bad), first_of(bad2));
    EXPECT_LT(first_of(bad2), first_of(c));
}

TEST(FrontDoor, TokensTheCoreSampledAfterAStopStringNeverShow) {
    // The output thread is held in the detokenizer on the request's first token while the core runs
    // ahead; when it finds the stop string, the core has sampled more tokens, which are dropped.
    const std::string script = "ab STOP cdefghijklmnopqrstuvwxyz";
    std::atomic<int> forwards{0};
    Rig s = make_engine({}, scripted(script, 3));
    s.fake->before_forward = [&] { ++forwards; };
    s.tokenizer->close_decode();
    Request r = ids_request({1, 5, 6}, 100);
    r.stop.stop_strings = {"STOP"};
    const RequestId id = s.engine->submit(r);
    ASSERT_TRUE(s.tokenizer->wait_decode_held(10s));
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (forwards < 15 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    ASSERT_GE(forwards, 15);
    s.tokenizer->open_decode();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {id}, out);
    EXPECT_EQ(out[id].end.reason, FinishReason::StopString);
    EXPECT_EQ(out[id].text, "ab ");
    EXPECT_EQ(out[id].ids.size(), 7u);  // up to the 'P' that completed "STOP", nothing after
    EXPECT_EQ(out[id].end.timings.generated_tokens, 7);
    EXPECT_GE(s.engine->stats().total_generated_tokens, 14);  // the core did sample more
    // The abort reaches the core (unless it had finished the request already): nothing is held.
    while (s.engine->stats().running + s.engine->stats().waiting > 0 && std::chrono::steady_clock::now() < deadline + 10s)
        std::this_thread::sleep_for(1ms);
    EXPECT_EQ(s.engine->stats().kv.blocks_used, 0);
    EXPECT_TRUE(s.engine->wait_events(50ms).empty());  // and nothing more comes for it
}

TEST(FrontDoor, EveryRequestsEventsComeInOrderUnderManyThreads) {
    EngineOptions o;
    o.num_kv_blocks = 24;  // small: preemption happens too
    o.max_num_seqs = 8;
    Rig s = make_engine(o);
    std::mutex mu;
    struct Asked {
        std::vector<int32_t> prompt;
        int max_tokens;
        std::vector<std::string> stops;
    };
    std::map<RequestId, Asked> asked;
    std::set<RequestId> cancelled;
    std::vector<std::thread> submitters;
    for (int t = 0; t < 4; ++t) {
        submitters.emplace_back([&, t] {
            std::mt19937 rng(200 + t);
            for (int i = 0; i < 20; ++i) {
                std::vector<int32_t> p;
                for (int k = 0; k < 3 + int(rng() % 30); ++k) p.push_back(3 + int32_t(rng() % 250));
                Request r = ids_request(p, 1 + int(rng() % 40));
                // A letter (matched within a few dozen tokens) and two letters in a row (held back
                // across tokens while they may still match).
                if (rng() % 3)
                    r.stop.stop_strings = {std::string(1, char('a' + rng() % 26)),
                                           std::string{char('a' + rng() % 26), char('a' + rng() % 26)}};
                const RequestId id = s.engine->submit(r);
                {
                    std::lock_guard lock(mu);
                    asked[id] = {p, r.stop.max_tokens, r.stop.stop_strings};
                }
                if (rng() % 5 == 0) {
                    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
                    s.engine->cancel(id);
                    std::lock_guard lock(mu);
                    cancelled.insert(id);
                }
            }
        });
    }
    for (auto& th : submitters) th.join();
    std::set<RequestId> all;
    for (const auto& [id, a] : asked) all.insert(id);
    std::map<RequestId, Stream> out;
    collect(*s.engine, all, out);
    ASSERT_EQ(all.size(), 80u);
    int stopped = 0;
    for (const auto& [id, a] : asked) {
        const Stream& st = out[id];
        ASSERT_EQ(st.ends, 1) << "request " << id << " ended " << st.ends << " times";
        // The reference: the request alone, cut at the first stop string.
        std::vector<int32_t> want;
        std::string text;
        FinishReason reason = FinishReason::Length;
        std::vector<int32_t> ctx = a.prompt;
        while (int(want.size()) < a.max_tokens) {
            Context c;
            for (size_t p = 0; p < ctx.size(); ++p) c.push_back({ctx[p], int32_t(p)});
            want.push_back(test::hashed_letter(c));
            ctx.push_back(want.back());
            text.push_back(char(want.back() - 3));
            size_t cut = std::string::npos;
            for (const std::string& stop : a.stops) cut = std::min(cut, text.find(stop));
            if (cut != std::string::npos) {
                text.resize(cut);
                reason = FinishReason::StopString;
                break;
            }
        }
        if (st.end.reason == FinishReason::Cancelled) {
            EXPECT_TRUE(cancelled.count(id));
            EXPECT_TRUE(std::equal(st.ids.begin(), st.ids.end(), want.begin())) << id;
            EXPECT_LE(st.ids.size(), want.size());
            EXPECT_EQ(text.compare(0, st.text.size(), st.text), 0) << id;
        } else {
            EXPECT_EQ(st.end.reason, reason) << id << " " << st.end.message;
            EXPECT_EQ(st.ids, want) << id;
            EXPECT_EQ(st.text, text) << id;
            stopped += reason == FinishReason::StopString;
        }
    }
    EXPECT_GT(stopped, 10);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (s.engine->stats().kv.blocks_used > 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    EXPECT_EQ(s.engine->stats().kv.blocks_used, 0);
}

TEST(FrontDoor, TimingsCountFromSubmitWithTheFrontDoorsOwnTime) {
    Rig s = make_engine();
    s.tokenizer->close();
    const RequestId id = s.engine->submit(chat_request("hello", 2));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    std::this_thread::sleep_for(60ms);
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {id}, out);
    const RequestTimings& t = out[id].end.timings;
    EXPECT_GE(t.input_ms, 60);
    EXPECT_GE(t.queue_ms, t.input_ms);
    EXPECT_GE(t.ttft_ms, t.queue_ms);
    EXPECT_EQ(t.generated_tokens, 2);
    EXPECT_GT(t.prompt_tokens, 5);
    EXPECT_EQ(out[id].end.prompt_ids.size(), size_t(t.prompt_tokens));
}

TEST(FrontDoor, AForkFollowsItsParentThroughTheFrontDoorAndContinuesIt) {
    Rig s = make_engine();
    s.tokenizer->close();
    const RequestId parent = s.engine->submit(chat_request("tell me", 8));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    SamplingParams greedy;
    greedy.temperature = 0;
    const RequestId child = s.engine->fork(parent, greedy);  // queued behind its parent
    SamplingParams bad;
    bad.temperature = -1;
    const RequestId bad_child = s.engine->fork(parent, bad);
    const RequestId orphan = s.engine->fork(999, greedy);
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {parent, child, bad_child, orphan}, out);
    ASSERT_EQ(out[parent].end.reason, FinishReason::Length) << out[parent].end.message;
    ASSERT_EQ(out[child].end.reason, FinishReason::Length) << out[child].end.message;
    // Greedy from the same tokens: the child's tokens are the parent's last ones (it inherits what
    // the parent had when the fork reached the core), and so is its text.
    const Stream& p = out[parent];
    const Stream& c = out[child];
    ASSERT_GE(c.ids.size(), 1u);
    ASSERT_LE(c.ids.size(), p.ids.size());
    EXPECT_TRUE(std::equal(c.ids.begin(), c.ids.end(), p.ids.end() - std::ptrdiff_t(c.ids.size())));
    EXPECT_EQ(c.text, p.text.substr(p.text.size() - c.text.size()));
    EXPECT_EQ(c.text.size(), c.ids.size());
    EXPECT_EQ(c.end.prompt_ids, p.end.prompt_ids);
    EXPECT_EQ(out[bad_child].end.kind, Event::Kind::Error);
    EXPECT_NE(out[bad_child].end.message.find("temperature"), std::string::npos) << out[bad_child].end.message;
    EXPECT_EQ(out[orphan].end.kind, Event::Kind::Error);
    EXPECT_NE(out[orphan].end.message.find("cannot fork request 999"), std::string::npos) << out[orphan].end.message;
    // n replies to one prompt: submit, then fork with other seeds; each runs to its own end. The
    // parent is held at the front door while the forks are made, as above: a fork that reached the
    // core after a parent had already ended (12 tokens of a tiny model take milliseconds) would get an
    // Error, as Engine::fork says, and the test would depend on thread scheduling.
    s.tokenizer->close();
    Request r = chat_request("n replies", 12);
    r.sampling.temperature = 1;
    r.sampling.seed = 1;
    const RequestId first = s.engine->submit(r);
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    std::set<RequestId> all{first};
    for (uint64_t seed = 2; seed <= 4; ++seed) {
        SamplingParams sp = r.sampling;
        sp.seed = seed;
        all.insert(s.engine->fork(first, sp));
    }
    s.tokenizer->open();
    collect(*s.engine, all, out);
    ASSERT_FALSE(out[first].end.prompt_ids.empty());
    for (RequestId id : all) {
        EXPECT_EQ(out[id].end.reason, FinishReason::Length) << id << " " << out[id].end.message;
        EXPECT_EQ(out[id].end.prompt_ids, out[first].end.prompt_ids);
    }
    EXPECT_EQ(out[first].ids.size(), 12u);
}

TEST(FrontDoor, AForkOfARequestThatEndsAtTheFrontDoorGetsAClearError) {
    Rig s = make_engine();
    s.tokenizer->close();
    const RequestId held = s.engine->submit(chat_request("first", 3));
    ASSERT_TRUE(s.tokenizer->wait_held(10s));
    // Queued behind the held request: one rejected by its input processing, one cancelled; forks of
    // both (and a fork of a fork) wait for them and end with them. A cancelled fork just ends.
    Request bad_stop = ids_request({1, 5}, 3);
    bad_stop.stop.stop_strings = {""};
    const RequestId rejected = s.engine->submit(bad_stop);
    const RequestId cancelled = s.engine->submit(ids_request({1, 5, 6}, 3));
    SamplingParams greedy;
    greedy.temperature = 0;
    const RequestId of_rejected = s.engine->fork(rejected, greedy);
    const RequestId of_of_rejected = s.engine->fork(of_rejected, greedy);
    const RequestId of_cancelled = s.engine->fork(cancelled, greedy);
    const RequestId live = s.engine->submit(ids_request({1, 5, 6, 7}, 3));
    const RequestId cancelled_fork = s.engine->fork(live, greedy);
    s.engine->cancel(cancelled);
    s.engine->cancel(cancelled_fork);
    s.tokenizer->open();
    std::map<RequestId, Stream> out;
    collect(*s.engine, {held, rejected, cancelled, of_rejected, of_of_rejected, of_cancelled, live, cancelled_fork}, out);
    EXPECT_EQ(out[rejected].end.kind, Event::Kind::Error);
    EXPECT_EQ(out[cancelled].end.reason, FinishReason::Cancelled);
    for (RequestId id : {of_rejected, of_of_rejected, of_cancelled}) {
        EXPECT_EQ(out[id].end.kind, Event::Kind::Error) << id;
        EXPECT_NE(out[id].end.message.find("ended before it reached the engine"), std::string::npos) << out[id].end.message;
        EXPECT_TRUE(out[id].ids.empty());
    }
    EXPECT_EQ(out[cancelled_fork].end.reason, FinishReason::Cancelled);
    EXPECT_TRUE(out[cancelled_fork].ids.empty());
    EXPECT_EQ(out[live].end.reason, FinishReason::Length);
    EXPECT_EQ(out[held].end.reason, FinishReason::Length);
    // Nothing is left in the core.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (s.engine->stats().running + s.engine->stats().waiting > 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    EXPECT_EQ(s.engine->stats().kv.blocks_used, 0);
}

TEST(SyncFrontDoor, AStopStringAcrossTokensEndsTheRequestAndFreesItInTheSameStep) {
    EngineOptions o;
    o.num_kv_blocks = 64;
    SyncEngine e(test::fake_model(), std::make_unique<FakeBackend>(300, scripted("xy STtOP STOP more", 3)), o);
    Request r = ids_request({1, 5, 6}, 100);
    r.stop.stop_strings = {"STOP", "never"};
    const RequestId id = e.add(r);
    std::map<RequestId, Stream> out;
    while (e.has_unfinished() || e.has_pending_events())
        for (const Event& ev : e.step()) absorb(ev, out);
    EXPECT_EQ(out[id].text, "xy STtOP ");
    EXPECT_EQ(out[id].end.reason, FinishReason::StopString);
    EXPECT_EQ(out[id].ids.size(), 13u);
    EXPECT_EQ(e.stats().total_generated_tokens, 13);  // aborted at once: nothing sampled after it
    EXPECT_EQ(e.stats().kv.blocks_used, 0);
    // A fork has its parent's stop strings.
    SyncEngine f(test::fake_model(), std::make_unique<FakeBackend>(300, scripted("ab STOP", 3)), o);
    const RequestId p = f.add(r);
    std::map<RequestId, Stream> got;
    for (const Event& ev : f.step()) absorb(ev, got);
    SamplingParams g;
    g.temperature = 0;
    const auto child = f.fork(p, g);
    ASSERT_TRUE(child);
    while (f.has_unfinished() || f.has_pending_events())
        for (const Event& ev : f.step()) absorb(ev, got);
    EXPECT_EQ(got[p].text, "ab ");
    EXPECT_EQ(got[*child].text, "b ");
    EXPECT_EQ(got[*child].end.reason, FinishReason::StopString);
}

}  // namespace
}  // namespace folio
