// folio-server's generation_tokens_total counts tokens as they stream (as vLLM's counts per step), so a
// monitor's tokens/s follows a long reply instead of jumping when it ends. The engine here is real
// (stories260K, CPU) but its backend stops before forward pass `hold_at` until the test lets it go,
// so the count is read while the request is certainly still running.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <regex>

#include "app/server/api_requests.h"
#include "app/server/metrics.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/engine.h"
#include "engine/model/model.h"
#include "tests/support/exact_engine.h"
#include "tests/support/held_backend.h"

namespace folio::server {
namespace {

double generation_tokens(const ServerMetrics& metrics, const Engine& engine) {
    const std::string text = metrics.render(engine.stats(), "m");
    std::smatch m;
    static const std::regex line("\nfolio:generation_tokens_total\\{model_name=\"m\"\\} ([0-9.e+]+)\n");
    if (!std::regex_search(text, m, line)) throw std::runtime_error("no generation_tokens_total in:\n" + text);
    return std::stod(m[1]);
}

TEST(GenerationTokens, CountedWhileTheReplyStreams) {
    std::shared_ptr<const Model> model = test::stories260k();
    EngineOptions o;
    o.num_kv_blocks = 64;
    // Pass 1 is the prompt (its logits give the first token), passes 2.. one token each: held before
    // pass 6, five tokens have been sampled and the request is not finished.
    auto backend = std::make_unique<HeldBackend>(test::exact_cpu_backend(*model), 6);
    HeldBackend* held = backend.get();
    ServerMetrics metrics;
    {
        auto engine_owner = std::make_unique<Engine>(model, std::move(backend), o);
        Engine& engine = *engine_owner;
        ApiRequests requests(engine, &metrics);
        Request r;
        r.prompt_ids = {1, 50, 60, 70};
        r.stop.max_tokens = 12;
        r.stop.ignore_eos = true;
        const auto stream = requests.submit(std::move(r));
        held->wait_until_held();
        int tokens = 0;
        for (int waits = 0; tokens < 5 && waits < 50; ++waits)
            for (const Event& e : stream->wait(std::chrono::milliseconds(200))) {
                ASSERT_EQ(e.kind, Event::Kind::Token) << "the request ended while its step was held";
                ++tokens;
            }
        ASSERT_EQ(tokens, 5) << "five tokens before the held step";
        EXPECT_EQ(requests.in_flight(), 1u);
        EXPECT_EQ(generation_tokens(metrics, engine), 5.0) << "tokens are counted as they come, not when the request ends";
        held->release();
        bool finished = false;
        for (int waits = 0; !finished && waits < 50; ++waits)
            for (const Event& e : stream->wait(std::chrono::milliseconds(200))) finished = finished || e.kind != Event::Kind::Token;
        ASSERT_TRUE(finished);
        EXPECT_EQ(generation_tokens(metrics, engine), 12.0);
        engine_owner.reset();  // the engine's threads stop before the requests' sinks go
    }
}

}  // namespace
}  // namespace folio::server
