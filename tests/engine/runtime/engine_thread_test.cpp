// The threaded Engine: submit, cancel, stats and events from several threads while the loop runs;
// no call waits for a step; failures become Error events and the loop goes on. Runs in the
// sanitizer build too (data races and leaks show up there).
#include "engine/frontdoor/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "tests/engine/runtime/fake_backend.h"
#include "tests/support/queued_client.h"

namespace folio {
namespace {

using test::Context;

std::vector<int32_t> alone(std::vector<int32_t> tokens, int max_tokens) {
    std::vector<int32_t> out;
    while (int(out.size()) < max_tokens) {
        Context ctx;
        for (size_t p = 0; p < tokens.size(); ++p) ctx.push_back({tokens[p], int32_t(p)});
        out.push_back(test::hashed_letter(ctx));
        tokens.push_back(out.back());
    }
    return out;
}

Request req(std::vector<int32_t> prompt, int max_tokens) {
    Request r;
    r.prompt_ids = std::move(prompt);
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

using QueuedEngine = test::QueuedClient<Engine>;

// The engine with every request's events going to one queue (QueuedClient).
std::unique_ptr<QueuedEngine> make_engine(test::FakeBackend** fake, EngineOptions o = {}) {
    if (o.num_kv_blocks == 0) o.num_kv_blocks = 64;
    auto b = std::make_unique<test::FakeBackend>(300);
    *fake = b.get();
    return std::make_unique<QueuedEngine>(std::make_unique<Engine>(test::fake_model(), std::move(b), o));
}

struct Stream {
    std::vector<int32_t> ids;
    int ends = 0;
    Event end;
};

// Collects events until every id in `ids` has ended (or a generous deadline passes).
void collect(QueuedEngine& e, const std::set<RequestId>& ids, std::map<RequestId, Stream>& out) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto done = [&] {
        for (RequestId id : ids)
            if (out[id].ends == 0) return false;
        return true;
    };
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        for (Event& ev : e.wait_events(std::chrono::milliseconds(200))) {
            Stream& s = out[ev.id];
            if (ev.kind == Event::Kind::Token) {
                EXPECT_EQ(s.ends, 0) << "token after the end of " << ev.id;
                s.ids.push_back(ev.token);
            } else {
                ++s.ends;
                s.end = ev;
            }
        }
    }
}

TEST(Engine, GeneratesOnItsOwnThreadAndAnswersBadRequestsWithAnError) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    const std::vector<int32_t> prompt{5, 6, 7, 8, 9};
    const RequestId good = e->submit(req(prompt, 12));
    const RequestId bad = e->submit(Request{});
    std::map<RequestId, Stream> out;
    collect(*e, {good, bad}, out);
    EXPECT_EQ(out[good].ids, alone(prompt, 12));
    EXPECT_EQ(out[good].end.reason, FinishReason::Length);
    EXPECT_EQ(out[bad].end.kind, Event::Kind::Error);
    EXPECT_NE(out[bad].end.message.find("no prompt"), std::string::npos);
    const EngineStats s = e->stats();
    EXPECT_EQ(s.total_generated_tokens, 12);
    EXPECT_EQ(s.kv.blocks_used, 0);
    EXPECT_EQ(&e->model().config, &e->model().config);
}

TEST(Engine, NoCallWaitsForAStep) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    std::promise<void> release;
    std::shared_future<void> gate = release.get_future().share();
    std::atomic<bool> in_step{false};
    fake->before_forward = [&] {
        in_step = true;
        gate.wait();
    };
    const RequestId first = e->submit(req({5, 6, 7}, 3));
    while (!in_step) std::this_thread::yield();
    // The loop is stuck inside a forward pass; every call below must still return.
    const RequestId second = e->submit(req({8, 9}, 3));
    e->cancel(first);
    const EngineStats s = e->stats();
    EXPECT_EQ(s.steps, 0);
    EXPECT_TRUE(e->poll_events().empty());
    EXPECT_TRUE(e->wait_events(std::chrono::milliseconds(1)).empty());
    release.set_value();
    std::map<RequestId, Stream> out;
    collect(*e, {first, second}, out);
    EXPECT_EQ(out[second].ids, alone({8, 9}, 3));
    EXPECT_EQ(out[first].end.reason, FinishReason::Cancelled);
    fake->before_forward = nullptr;
}

TEST(Engine, ABackendFailureIsAnErrorEventAndTheLoopGoesOn) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    std::atomic<int> calls{0};
    fake->before_forward = [&] {
        if (calls++ == 1) throw Error("device lost");
    };
    const RequestId a = e->submit(req({5, 6, 7}, 5));
    std::map<RequestId, Stream> out;
    collect(*e, {a}, out);
    EXPECT_EQ(out[a].end.kind, Event::Kind::Error);
    EXPECT_NE(out[a].end.message.find("device lost"), std::string::npos);
    const RequestId b = e->submit(req({5, 6, 7}, 5));
    collect(*e, {b}, out);
    EXPECT_EQ(out[b].ids, alone({5, 6, 7}, 5));
}

TEST(Engine, ManyThreadsSubmitCancelAndReadStatsWhileItRuns) {
    test::FakeBackend* fake = nullptr;
    EngineOptions o;
    o.num_kv_blocks = 24;  // small: preemption happens too
    o.max_num_seqs = 8;
    auto e = make_engine(&fake, o);
    std::mutex mu;
    std::map<RequestId, std::pair<std::vector<int32_t>, int>> asked;
    std::set<RequestId> cancelled;
    std::atomic<bool> stop_stats{false};
    std::thread stats_reader([&] {
        int64_t last_steps = 0;
        while (!stop_stats) {
            const EngineStats s = e->stats();
            EXPECT_GE(s.steps, last_steps);
            EXPECT_EQ(s.kv.blocks_used + s.kv.blocks_cached + s.kv.blocks_free, s.kv.blocks_total);
            last_steps = s.steps;
        }
    });
    std::vector<std::thread> submitters;
    for (int t = 0; t < 4; ++t) {
        submitters.emplace_back([&, t] {
            std::mt19937 rng(100 + t);
            for (int i = 0; i < 25; ++i) {
                std::vector<int32_t> p;
                for (int k = 0; k < 3 + int(rng() % 40); ++k) p.push_back(3 + int32_t(rng() % 250));
                const int n = 1 + int(rng() % 30);
                const RequestId id = e->submit(req(p, n));
                {
                    std::lock_guard lock(mu);
                    asked[id] = {p, n};
                }
                if (rng() % 4 == 0) {
                    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
                    e->cancel(id);
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
    collect(*e, all, out);
    stop_stats = true;
    stats_reader.join();
    ASSERT_EQ(all.size(), 100u);
    for (const auto& [id, a] : asked) {
        const Stream& s = out[id];
        ASSERT_EQ(s.ends, 1) << "request " << id << " ended " << s.ends << " times";
        const auto want = alone(a.first, a.second);
        if (s.end.reason == FinishReason::Cancelled) {
            EXPECT_TRUE(cancelled.count(id));
            // Whatever streamed before the cancel is a prefix of the full answer.
            EXPECT_TRUE(std::equal(s.ids.begin(), s.ids.end(), want.begin())) << id;
        } else {
            EXPECT_EQ(s.end.reason, FinishReason::Length) << s.end.message;
            EXPECT_EQ(s.ids, want) << id;
        }
    }
    const EngineStats s = e->stats();
    EXPECT_EQ(s.kv.blocks_used, 0);
    EXPECT_EQ(s.running + s.waiting, 0);
}

TEST(Engine, ASinkGetsItsRequestsEventsOnTheEngineThread) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Event> got;
    std::set<std::thread::id> threads;
    const RequestId id = e->client().submit(req({5, 6, 7}, 4), [&](const Event& ev) {
        std::lock_guard lock(mu);
        got.push_back(ev);
        threads.insert(std::this_thread::get_id());
        cv.notify_all();
    });
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return !got.empty() && got.back().kind != Event::Kind::Token; }));
    EXPECT_EQ(got.size(), 5u);
    EXPECT_EQ(got.back().id, id);
    EXPECT_EQ(threads.size(), 1u);
    EXPECT_FALSE(threads.count(std::this_thread::get_id()));
    EXPECT_TRUE(e->poll_events().empty());  // nothing went to the other sink
}

TEST(Engine, StaticBatchesStartWhenFullOrWhenInputCloses) {
    test::FakeBackend* fake = nullptr;
    EngineOptions o;
    o.batching = BatchingMode::Static;
    o.static_batch_size = 4;
    auto e = make_engine(&fake, o);
    const RequestId a = e->submit(req({5, 6}, 3));
    const RequestId b = e->submit(req({7, 8}, 3));
    EXPECT_TRUE(e->wait_events(std::chrono::milliseconds(100)).empty());  // two of four: waiting
    EXPECT_EQ(e->stats().steps, 0);
    e->set_input_closed(true);
    std::map<RequestId, Stream> out;
    collect(*e, {a, b}, out);
    EXPECT_EQ(out[a].ids, alone({5, 6}, 3));
    EXPECT_EQ(out[b].ids, alone({7, 8}, 3));
}

TEST(Engine, DestroyingItWithRequestsInFlightStopsCleanly) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    for (int i = 0; i < 10; ++i) e->submit(req({5, 6, 7}, 200));
    e->wait_events(std::chrono::milliseconds(20));
    e.reset();  // joins the loop; nothing leaks (the sanitizer build checks)
    SUCCEED();
}

}  // namespace
}  // namespace folio

namespace folio {
namespace {

// n replies through the threaded Engine: consecutive ids, each with its own events, and the first id
// cancels them all wherever the request stands (at the front door or in the core). An invalid n is
// an Error event for each id.
TEST(Engine, NRepliesHaveConsecutiveIdsAndTheFirstCancelsAll) {
    test::FakeBackend* fake = nullptr;
    auto e = make_engine(&fake);
    Request r = req({3, 4, 5, 6, 7}, 6);
    r.n = 3;
    const RequestId first = e->submit(r);
    std::map<RequestId, Stream> out;
    collect(*e, {first, first + 1, first + 2}, out);
    for (RequestId id = first; id < first + 3; ++id) {
        EXPECT_EQ(out[id].ids, alone({3, 4, 5, 6, 7}, 6)) << id;
        EXPECT_EQ(out[id].end.reason, FinishReason::Length) << id;
    }
    EXPECT_EQ(e->submit(req({3}, 1)), first + 3) << "the replies' ids are taken";

    Request slow = req({3, 4, 5}, 10000);
    slow.stop.ignore_eos = true;
    slow.n = 4;
    std::set<RequestId> ids;
    fake->before_forward = [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); };  // 250 steps: 0.5 s at least
    for (int k = 0; k < 2; ++k) {  // cancelled at once (front door), then once its replies are running
        const RequestId id = e->submit(slow);
        std::map<RequestId, Stream> got;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (k == 1 && got[id + 3].ids.empty() && got[id + 3].ends == 0 && std::chrono::steady_clock::now() < deadline)
            for (Event& ev : e->wait_events(std::chrono::milliseconds(50))) {
                if (ev.kind == Event::Kind::Token) got[ev.id].ids.push_back(ev.token);
                else ++got[ev.id].ends;
            }
        e->cancel(id);
        collect(*e, {id, id + 1, id + 2, id + 3}, got);
        for (RequestId i = id; i < id + 4; ++i) {
            EXPECT_EQ(got[i].ends, 1) << i;
            EXPECT_EQ(got[i].end.reason, FinishReason::Cancelled) << i;
        }
    }
    Request bad = req({3}, 2);
    bad.n = 0;
    const RequestId b = e->submit(bad);
    std::map<RequestId, Stream> got;
    collect(*e, {b}, got);
    EXPECT_EQ(got[b].end.kind, Event::Kind::Error);
    EXPECT_NE(got[b].end.message.find("n (replies)"), std::string::npos) << got[b].end.message;
    bad.n = 100;  // out of range: one id, one Error event
    const RequestId b2 = e->submit(bad);
    collect(*e, {b2}, got);
    EXPECT_EQ(got[b2].end.kind, Event::Kind::Error);
    EXPECT_EQ(e->submit(req({3}, 1)), b2 + 1);
}

}  // namespace
}  // namespace folio
