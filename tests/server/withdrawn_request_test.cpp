// An API request in flight when the server lets go of its model (the desktop app switches or unloads
// the model it lends, HttpServer::detach) ends the way OpenAI's clients understand: a stream with an
// error event that says why, then [DONE]; a whole answer with a 503 saying why. Never a choice with
// finish_reason "cancelled" (no OpenAI value: clients take it for a normal end). The engine is real
// (stories260K, CPU) but its backend stops before one forward pass until the test lets it go, so the
// request is certainly still running when the model is withdrawn.
#include <gtest/gtest.h>

#include <httplib.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "app/server/http_server.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/engine.h"
#include "engine/model/model.h"
#include "tests/support/exact_engine.h"
#include "tests/support/held_backend.h"

namespace folio::server {
namespace {

using json = nlohmann::json;

constexpr const char* kReason = "the model was switched in the app: send the request again";

class WithdrawnRequestTest : public ::testing::Test {
protected:
    // Serves stories260K; forward pass `hold_at` waits for the test.
    void serve(int hold_at) {
        std::shared_ptr<const Model> model = test::stories260k();
        EngineOptions o;
        o.num_kv_blocks = 64;
        ServerOptions so;
        so.port = 0;
        server_ = std::make_unique<HttpServer>(so);
        server_->set_model_name("stories260K");
        port_ = server_->bind();
        auto backend = std::make_unique<HeldBackend>(test::exact_cpu_backend(*model), hold_at);
        held_ = backend.get();
        server_->set_loaded(model, std::make_unique<Engine>(model, std::move(backend), o));
        thread_ = std::thread([this] { server_->listen(); });
        while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    // Once the request is held mid-reply: withdraw the model (detach cancels, then waits for the
    // handlers), and let the held step go so the cancel is seen.
    void withdraw_while_held() {
        held_->wait_until_held();
        EXPECT_EQ(server_->requests_in_flight(), 1);
        auto detached = std::async(std::launch::async, [this] { server_->detach(kReason); });
        // detach marks the model withdrawn and cancels before it waits: the step may go on now.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        held_->release();
        detached.get();
        held_ = nullptr;  // went with the engine
        EXPECT_EQ(server_->requests_in_flight(), 0);
    }
    void TearDown() override {
        if (held_) held_->release();
        server_->stop();
        thread_.join();
        server_.reset();
    }

    std::unique_ptr<HttpServer> server_;
    HeldBackend* held_ = nullptr;
    int port_ = 0;
    std::thread thread_;
};

TEST_F(WithdrawnRequestTest, AStreamEndsWithAnErrorEventSayingWhy) {
    serve(6);  // five tokens streamed, then held
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(60, 0);
    auto response = std::async(std::launch::async, [&] {
        return cli.Post("/v1/chat/completions",
                        R"({"messages":[{"role":"user","content":"Once upon a time"}],"max_tokens":40,"temperature":0,"ignore_eos":true,"stream":true})",
                        "application/json");
    });
    withdraw_while_held();
    auto res = response.get();
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);  // the stream had started
    const std::string& body = res->body;
    EXPECT_EQ(body.find("cancelled"), std::string::npos) << body;
    const size_t done = body.rfind("data: [DONE]\n\n");
    ASSERT_NE(done, std::string::npos) << body;
    const size_t last = body.rfind("data: ", done - 1);
    ASSERT_NE(last, std::string::npos) << body;
    const json err = json::parse(body.substr(last + 6, done - last - 6));
    ASSERT_TRUE(err.contains("error")) << body;
    EXPECT_EQ(err["error"]["message"], kReason);
    EXPECT_EQ(err["error"]["type"], "unavailable_error");
}

TEST_F(WithdrawnRequestTest, AWholeAnswerIsA503SayingWhy) {
    serve(6);
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(60, 0);
    auto response = std::async(std::launch::async, [&] {
        return cli.Post("/v1/completions", R"({"prompt":"Once upon a time","max_tokens":40,"temperature":0,"ignore_eos":true})",
                        "application/json");
    });
    withdraw_while_held();
    auto res = response.get();
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 503) << res->body;
    EXPECT_EQ(res->body.find("cancelled"), std::string::npos) << res->body;
    const json err = json::parse(res->body);
    EXPECT_EQ(err["error"]["message"], kReason);
    EXPECT_EQ(err["error"]["type"], "unavailable_error");
}

}  // namespace
}  // namespace folio::server
