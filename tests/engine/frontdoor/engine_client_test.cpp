// The threaded Engine through EngineClient: each request's events reach the sink it was submitted
// with, and only that sink (several front ends share one engine), in order, for n replies and forks
// too; cancel ends only the request named; model_info and describe come from the model and backend.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "engine/frontdoor/engine.h"
#include "engine/frontdoor/engine_client.h"
#include "tests/engine/runtime/fake_backend.h"

namespace folio {
namespace {

using namespace std::chrono_literals;

Request ids_request(std::vector<int32_t> prompt, int max_tokens) {
    Request r;
    r.prompt_ids = std::move(prompt);
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

std::unique_ptr<EngineClient> fake_engine(test::FakeBackend** fake = nullptr) {
    EngineOptions o;
    o.num_kv_blocks = 64;
    auto backend = std::make_unique<test::FakeBackend>(300);
    if (fake) *fake = backend.get();
    return std::make_unique<Engine>(test::fake_model(), std::move(backend), o);
}

// What one sink received, reply by reply, and every id it saw.
struct Received {
    std::map<RequestId, std::vector<int32_t>> tokens;
    std::map<RequestId, Event> ends;
    std::vector<RequestId> order;  // the id of each event, as they came
};

// Pulls `queue` until each of `ids` has ended (or a generous deadline passes), checking that no
// reply has an event after its end.
void drain(EventQueue& queue, const std::set<RequestId>& ids, Received& got) {
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    auto done = [&] {
        for (RequestId id : ids)
            if (!got.ends.count(id)) return false;
        return true;
    };
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        for (const Event& e : queue.wait(100ms)) {
            got.order.push_back(e.id);
            EXPECT_FALSE(got.ends.count(e.id)) << "an event after the end of " << e.id;
            if (e.kind == Event::Kind::Token) got.tokens[e.id].push_back(e.token);
            else got.ends[e.id] = e;
        }
    }
}

std::set<RequestId> ids_seen(const Received& r) { return {r.order.begin(), r.order.end()}; }

// The tokens a request alone would get (greedy, the fake model): the reference for each sink.
std::vector<int32_t> alone(const std::vector<int32_t>& prompt, int max_tokens) {
    auto engine = fake_engine();
    auto q = std::make_shared<EventQueue>();
    const RequestId id = engine->submit(ids_request(prompt, max_tokens), EventQueue::sink_of(q));
    Received got;
    drain(*q, {id}, got);
    return got.tokens[id];
}

TEST(EngineClient, TwoRequestsTwoSinksEachGetsOnlyItsOwnEventsInOrder) {
    test::FakeBackend* fake = nullptr;
    auto engine = fake_engine(&fake);
    // Slow steps, so both requests run together in the batch and their events interleave.
    fake->before_forward = [] { std::this_thread::sleep_for(1ms); };
    auto qa = std::make_shared<EventQueue>(), qb = std::make_shared<EventQueue>();
    Request b = ids_request({9, 8, 7, 6}, 10);
    b.n = 3;
    const RequestId a = engine->submit(ids_request({5, 6, 7}, 12), EventQueue::sink_of(qa));
    const RequestId bid = engine->submit(b, EventQueue::sink_of(qb));
    // A fork of request a, its events to a third sink.
    auto qf = std::make_shared<EventQueue>();
    SamplingParams greedy;
    greedy.temperature = 0;
    const RequestId child = engine->fork(a, greedy, EventQueue::sink_of(qf));
    Received ga, gb, gf;
    drain(*qa, {a}, ga);
    drain(*qb, {bid, bid + 1, bid + 2}, gb);
    drain(*qf, {child}, gf);

    EXPECT_EQ(ids_seen(ga), std::set<RequestId>{a});
    EXPECT_EQ(ids_seen(gb), (std::set<RequestId>{bid, bid + 1, bid + 2}));
    EXPECT_EQ(ids_seen(gf), std::set<RequestId>{child});
    const std::vector<int32_t> want_a = alone({5, 6, 7}, 12), want_b = alone({9, 8, 7, 6}, 10);
    EXPECT_EQ(ga.tokens[a], want_a);
    EXPECT_EQ(ga.ends[a].reason, FinishReason::Length);
    for (RequestId id = bid; id < bid + 3; ++id) {
        EXPECT_EQ(gb.tokens[id], want_b) << id;
        EXPECT_EQ(gb.ends[id].reason, FinishReason::Length) << id;
    }
    // The fork goes on greedily from wherever a stood: its tokens are the rest of a's (max_tokens
    // counts the inherited ones), and each of its events is its own.
    ASSERT_TRUE(gf.ends.count(child));
    ASSERT_EQ(gf.ends[child].kind, Event::Kind::Finished) << gf.ends[child].message;
    const std::vector<int32_t>& ft = gf.tokens[child];
    ASSERT_LE(ft.size(), want_a.size());
    EXPECT_TRUE(std::equal(ft.begin(), ft.end(), want_a.end() - std::ptrdiff_t(ft.size())));
    fake->before_forward = nullptr;
}

TEST(EngineClient, AnInvalidRequestsErrorGoesToItsOwnSink) {
    auto engine = fake_engine();
    auto good = std::make_shared<EventQueue>(), bad = std::make_shared<EventQueue>();
    const RequestId g = engine->submit(ids_request({5, 6}, 4), EventQueue::sink_of(good));
    Request none;
    none.n = 2;
    const RequestId b = engine->submit(none, EventQueue::sink_of(bad));
    const RequestId orphan = engine->fork(999, SamplingParams{}, EventQueue::sink_of(bad));
    Received gg, gb;
    drain(*good, {g}, gg);
    drain(*bad, {b, b + 1, orphan}, gb);
    EXPECT_EQ(ids_seen(gg), std::set<RequestId>{g});
    EXPECT_EQ(ids_seen(gb), (std::set<RequestId>{b, b + 1, orphan}));
    for (RequestId id : {b, b + 1, orphan}) EXPECT_EQ(gb.ends[id].kind, Event::Kind::Error) << id;
    EXPECT_NE(gb.ends[orphan].message.find("cannot fork"), std::string::npos) << gb.ends[orphan].message;
}

TEST(EngineClient, CancelEndsEveryReplyOfThatRequestAndNoOther) {
    test::FakeBackend* fake = nullptr;
    auto engine = fake_engine(&fake);
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::atomic<bool> in_step{false};
    fake->before_forward = [&] {
        in_step = true;
        gate.wait();
    };
    auto qc = std::make_shared<EventQueue>(), qk = std::make_shared<EventQueue>();
    Request r = ids_request({5, 6, 7}, 10000);
    r.stop.ignore_eos = true;
    r.n = 2;
    const RequestId cancelled = engine->submit(r, EventQueue::sink_of(qc));
    const RequestId kept = engine->submit(ids_request({8, 9}, 5), EventQueue::sink_of(qk));
    while (!in_step) std::this_thread::yield();
    engine->cancel(cancelled);  // while the core is held in a step
    engine->cancel(12345);      // unknown: ignored
    release.set_value();
    Received gc, gk;
    drain(*qc, {cancelled, cancelled + 1}, gc);
    drain(*qk, {kept}, gk);
    EXPECT_EQ(ids_seen(gc), (std::set<RequestId>{cancelled, cancelled + 1}));
    for (RequestId id : {cancelled, cancelled + 1}) EXPECT_EQ(gc.ends[id].reason, FinishReason::Cancelled) << id;
    EXPECT_EQ(ids_seen(gk), std::set<RequestId>{kept});
    EXPECT_EQ(gk.ends[kept].reason, FinishReason::Length);
    EXPECT_EQ(gk.tokens[kept], alone({8, 9}, 5));
    fake->before_forward = nullptr;
}

TEST(EngineClient, ModelInfoAndDescribeComeFromTheModelAndBackend) {
    auto engine = fake_engine();
    const EngineModelInfo& info = engine->model_info();
    const EngineStats st = engine->stats();
    EXPECT_FALSE(info.remote);
    EXPECT_EQ(info.context_length, 256);
    EXPECT_EQ(info.backend, st.backend);
    EXPECT_EQ(info.device, st.device_name);
    EXPECT_EQ(engine->describe(), st.backend);
    EXPECT_FALSE(info.template_thinks);
}

}  // namespace
}  // namespace folio
