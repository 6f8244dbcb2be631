// An engine-side failure after a stream has started, end to end: the HTTP server in process over a
// real engine (stories260K, CPU backend) whose backend is wrapped by this test so that one chosen
// forward pass throws, as a device error would. The engine fails that step's request (its real
// path: "the cpu backend failed during a step") and goes on. The client must get the chunks so
// far, one `data: {"error": ...}` event in OpenAI's shape, `data: [DONE]`, and the end of the
// response; the server then answers the next request normally. (A reply that outgrows the KV pool
// is not an error in this engine: it ends with finish_reason "length".)
#include <gtest/gtest.h>

#include <httplib.h>

#include <thread>

#include "app/server/http_server.h"
#include "engine/backend/wrapped_backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/engine.h"
#include "engine/model/model.h"
#include "tests/support/exact_engine.h"

namespace folio::server {
namespace {

using json = nlohmann::json;

// The CPU backend, except that forward pass number `fail_at` (counting from 1) throws once.
class FaultyBackend : public WrappedBackend {
public:
    FaultyBackend(std::unique_ptr<Backend> inner, int fail_at) : WrappedBackend(std::move(inner)), fail_at_(fail_at) {}
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override {
        if (++forwards_ == fail_at_) throw std::runtime_error("injected device fault");
        WrappedBackend::forward(batch, logits);
    }

private:
    int fail_at_;
    int forwards_ = 0;  // the engine's step thread alone calls forward()
};

class StreamErrorTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::shared_ptr<const Model> model = test::stories260k();
        EngineOptions o;
        o.num_kv_blocks = 64;
        ServerOptions so;
        so.port = 0;
        server_ = std::make_unique<HttpServer>(so);
        server_->set_model_name("stories260K");
        port_ = server_->bind();
        server_->set_loaded(model, std::make_unique<Engine>(model, std::make_unique<FaultyBackend>(test::exact_cpu_backend(*model), 8), o));
        thread_ = std::thread([this] { server_->listen(); });
        while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    void TearDown() override {
        server_->stop();
        thread_.join();
        server_.reset();
    }

    std::unique_ptr<HttpServer> server_;
    int port_ = 0;
    std::thread thread_;
};

std::vector<std::string> events(const std::string& body) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < body.size()) {
        const size_t end = body.find("\n\n", pos);
        if (end == std::string::npos) {
            out.push_back("<unterminated>" + body.substr(pos));
            break;
        }
        out.push_back(body.substr(pos, end - pos));
        pos = end + 2;
    }
    return out;
}

TEST_F(StreamErrorTest, AFailureMidStreamIsAnErrorEventThenDoneAndTheServerGoesOn) {
    httplib::Client cli("127.0.0.1", port_);
    cli.set_read_timeout(60, 0);
    // The 8th forward pass fails: the prompt's prefill is the first, so about 6 tokens have streamed.
    // ignore_eos: the story cannot end before.
    const std::string body = R"({"prompt":"Once upon a time","max_tokens":40,"temperature":0,"ignore_eos":true,"stream":true})";
    auto res = cli.Post("/v1/completions", body, "application/json");
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);  // the stream started before the failure
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
    const auto ev = events(res->body);
    ASSERT_GE(ev.size(), 4u) << res->body;
    EXPECT_EQ(ev.back(), "data: [DONE]");
    const std::string& err_event = ev[ev.size() - 2];
    ASSERT_EQ(err_event.rfind("data: ", 0), 0u) << err_event;
    const json err = json::parse(err_event.substr(6));
    ASSERT_TRUE(err.contains("error")) << res->body;
    const json& e = err["error"];
    EXPECT_EQ(e["type"], "server_error");
    EXPECT_TRUE(e["param"].is_null());
    EXPECT_TRUE(e["code"].is_null());
    EXPECT_NE(e["message"].get<std::string>().find("injected device fault"), std::string::npos) << e["message"];
    // Before it: text chunks, none of them a finish (the request did not end normally).
    int text_chunks = 0;
    for (size_t i = 0; i + 2 < ev.size(); ++i) {
        ASSERT_EQ(ev[i].rfind("data: ", 0), 0u) << ev[i];
        const json c = json::parse(ev[i].substr(6));
        EXPECT_EQ(c["object"], "text_completion");
        EXPECT_TRUE(c["choices"][0]["finish_reason"].is_null()) << ev[i];
        if (!c["choices"][0]["text"].get<std::string>().empty()) ++text_chunks;
    }
    EXPECT_GT(text_chunks, 0) << "the failure must come after tokens were streamed: " << res->body;

    // The server keeps serving: a request that fits the pool gets its whole answer.
    auto next = cli.Post("/v1/completions", R"({"prompt":"Once upon a time","max_tokens":4,"temperature":0})", "application/json");
    ASSERT_TRUE(next) << httplib::to_string(next.error());
    EXPECT_EQ(next->status, 200) << next->body;
    const json whole = json::parse(next->body);
    EXPECT_EQ(whole["usage"]["completion_tokens"], 4);
    EXPECT_EQ(whole["choices"][0]["finish_reason"], "length");
}

}  // namespace
}  // namespace folio::server
