// make_engine, the one place an engine is built: a model folder becomes a running local engine
// (stories260K on the exact CPU backend: the text equals the step-by-step engine's), and a folder
// that is no model is a folio::Error naming it, with nothing left running.
#include "engine/client/make_engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "engine/core/error.h"
#include "tests/support/exact_engine.h"
#include "tests/support/request_outcomes.h"

namespace folio {
namespace {

using namespace std::chrono_literals;

LocalEngineSpec stories_spec() {
    LocalEngineSpec spec;
    spec.model = test::fixture_path("models/stories260K");
    spec.engine.backend = test::exact_cpu(1);
    spec.engine.backend.kind = BackendKind::Cpu;
    spec.engine.num_kv_blocks = 64;
    return spec;
}

Request story(int max_tokens) {
    Request r;
    r.messages = {{"user", "Once upon a time"}};
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

TEST(MakeEngine, AModelFolderGivesALocalEngineThatGenerates) {
    const std::unique_ptr<EngineClient> client = make_engine(EngineSpec{stories_spec()});
    const EngineModelInfo& info = client->model_info();
    EXPECT_FALSE(info.remote);
    EXPECT_EQ(info.name, "stories260K");
    EXPECT_EQ(info.backend, "cpu");
    EXPECT_EQ(client->describe(), "cpu");
    EXPECT_EQ(info.architecture, "LlamaForCausalLM");
    EXPECT_EQ(info.context_length, 512);
    EXPECT_EQ(info.layers, 5);
    EXPECT_EQ(info.hidden_size, 64);
    EXPECT_FALSE(info.quantization.empty());

    auto q = std::make_shared<EventQueue>();
    const RequestId id = client->submit(story(24), EventQueue::sink_of(q));
    std::map<RequestId, test::RequestOutcome> got;
    for (int i = 0; i < 600 && !got[id].finished; ++i) test::absorb(q->wait(100ms), got);
    ASSERT_TRUE(got[id].finished);
    ASSERT_EQ(got[id].end.kind, Event::Kind::Finished) << got[id].end.message;

    // The same request on the step-by-step engine, same model and backend mode.
    EngineOptions o;
    o.num_kv_blocks = 64;
    SyncEngine reference(test::stories260k(), test::exact_cpu_backend(*test::stories260k()), o);
    const RequestId rid = reference.add(story(24));
    auto want = test::drain(reference);
    EXPECT_FALSE(want[rid].text.empty());
    EXPECT_EQ(got[id].text, want[rid].text);
    EXPECT_EQ(got[id].ids, want[rid].ids);
    EXPECT_EQ(client->stats().total_generated_tokens, int64_t(got[id].ids.size()));
}

TEST(MakeEngine, AFolderThatIsNoModelIsAClearErrorAndNothingRuns) {
    const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "make_engine_test_not_a_model";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "notes.txt") << "not a model\n";
    LocalEngineSpec spec = stories_spec();
    spec.model = dir.string();
    const auto threads_before = std::distance(std::filesystem::directory_iterator("/proc/self/task"), {});
    try {
        make_engine(EngineSpec{spec});
        FAIL() << "a folder without a model made an engine";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find(dir.string()), std::string::npos) << "the message names the folder: " << m;
        EXPECT_NE(m.find("config.json"), std::string::npos) << "the message says what is missing: " << m;
    }
    // No engine thread outlives the failed call.
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator("/proc/self/task"), {}), threads_before);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace folio
