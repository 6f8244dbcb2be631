// engine/remote against a live folio-server on loopback (stories260K, exact CPU mode): greedy text
// equal to the in-process engine's, stop strings, a wrong key (401), an unreachable endpoint, and a
// server killed mid-reply (by the PID this test started) ending the request with an Error that
// keeps the text so far.
#include <gtest/gtest.h>

#include <set>

#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "engine/client/make_engine.h"
#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/frontdoor/sync_engine.h"
#include "engine/model/model.h"
#include "engine/remote/remote_engine.h"
#include "tests/support/exact_engine.h"
#include "tests/support/queued_client.h"
#include "tests/support/request_outcomes.h"

extern char** environ;

namespace folio {
namespace {

const std::string kKey = "remote-test-key-5f3a";

size_t discard(char*, size_t s, size_t n, void*) { return s * n; }

long http_status(const std::string& url) {
    CURL* c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    return status;
}

// folio-server on a free loopback port, started and stopped by its PID.
class ServerProcess {
public:
    ServerProcess() {
        const std::string dir = ::testing::TempDir();
        out_ = dir + "/remote_engine_test_server." + std::to_string(getpid()) + ".out";
        const std::string model = test::fixture_path("models/stories260K");
        std::vector<std::string> args = {FOLIO_SERVER_EXE, "--port", "0", "--model", model, "--backend", "cpu",
                                         "--cpu-activations", "exact", "--threads", "1", "--api-key", kKey};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, (out_ + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int rc = posix_spawn(&pid_, FOLIO_SERVER_EXE, &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) throw Error("cannot start " + std::string(FOLIO_SERVER_EXE));
        const std::regex listening(R"(listening on http://127\.0\.0\.1:([0-9]+))");
        for (int i = 0; i < 400 && base_.empty(); ++i) {
            std::ifstream f(out_);
            std::stringstream ss;
            ss << f.rdbuf();
            std::smatch m;
            const std::string text = ss.str();
            if (std::regex_search(text, m, listening)) base_ = "http://127.0.0.1:" + m[1].str();
            else std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        if (base_.empty()) throw Error("folio-server printed no port (see " + out_ + ".err)");
        for (int i = 0; i < 400 && http_status(base_ + "/health") != 200; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(25));
        if (http_status(base_ + "/health") != 200) throw Error("folio-server never became healthy");
    }
    ~ServerProcess() {
        if (pid_ > 0) {
            kill(pid_, SIGTERM);
            int status = 0;
            waitpid(pid_, &status, 0);
        }
    }
    // SIGKILL, as a crash: no reply is finished, no connection closed cleanly.
    void kill_now() {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
    }
    void stop_now() { kill(pid_, SIGSTOP); }
    const std::string& base() const { return base_; }

private:
    pid_t pid_ = -1;
    std::string out_;
    std::string base_;
};

// The in-process engine's replies to `r` (n of them: ids first .. first + n - 1): the reference.
std::map<RequestId, test::RequestOutcome> local_replies(const Request& r, RequestId* first) {
    EngineOptions o;
    o.num_kv_blocks = 256;
    SyncEngine engine(test::stories260k(), test::exact_cpu_backend(*test::stories260k()), o);
    *first = engine.add(r);
    return test::drain(engine);
}

test::RequestOutcome local_reply(const Request& r) {
    RequestId id = 0;
    return local_replies(r, &id)[id];
}

// The remote engine with every request's events going to one queue (QueuedClient).
using Remote = test::QueuedClient<remote::RemoteEngine>;
Remote connect_to(remote::RemoteOptions o) { return Remote(std::make_unique<remote::RemoteEngine>(std::move(o))); }

test::RequestOutcome remote_reply(Remote& engine, const Request& r) {
    const RequestId id = engine.submit(r);
    std::map<RequestId, test::RequestOutcome> out;
    while (!out[id].finished) test::absorb(engine.wait_events(std::chrono::milliseconds(200)), out);
    return out[id];
}

Request greedy_chat(int max_tokens) {
    Request r;
    r.messages = {{"user", "Once upon a time"}};
    r.sampling.temperature = 0;
    r.stop.max_tokens = max_tokens;
    return r;
}

remote::RemoteOptions options_for(const ServerProcess& s, std::string key = kKey) {
    remote::RemoteOptions o;
    o.endpoint = s.base();
    o.api_key = std::move(key);
    return o;
}

class RemoteEngineTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { server_ = new ServerProcess(); }
    static void TearDownTestSuite() {
        delete server_;
        server_ = nullptr;
    }
    static ServerProcess* server_;
};
ServerProcess* RemoteEngineTest::server_ = nullptr;

TEST_F(RemoteEngineTest, GreedyTextEqualsTheLocalEngines) {
    Remote engine = connect_to(options_for(*server_));
    EXPECT_EQ(engine.model(), "stories260K");  // asked from /v1/models
    Request text;
    text.prompt_text = "The little dog";
    text.sampling.temperature = 0;
    text.stop.max_tokens = 48;
    Request ids = text;
    ids.prompt_text.reset();
    ids.prompt_ids = local_reply(text).end.prompt_ids;
    for (const Request& r : {greedy_chat(40), greedy_chat(400), text, ids}) {
        const auto local = local_reply(r);
        const auto remote = remote_reply(engine, r);
        ASSERT_EQ(remote.end.kind, Event::Kind::Finished) << remote.end.message;
        EXPECT_FALSE(local.text.empty());
        EXPECT_EQ(remote.text, local.text);
        EXPECT_EQ(remote.end.reason, local.end.reason == FinishReason::Length ? FinishReason::Length : FinishReason::Eos);
        EXPECT_EQ(remote.end.timings.generated_tokens, int(local.ids.size()));
        EXPECT_EQ(remote.end.timings.prompt_tokens, int(local.end.prompt_ids.size()));
        EXPECT_GT(remote.end.timings.ttft_ms, 0);
    }
}

// n replies over the wire: one request with the API's n, reply i arriving as id + i with the text
// the local engine gives reply i of the same request (seed + i), each ended on its own.
TEST_F(RemoteEngineTest, NRepliesAreOneRequestWithTheLocalEnginesTexts) {
    Remote engine = connect_to(options_for(*server_));
    Request r;
    r.prompt_text = "The little dog";
    r.sampling.temperature = 0.8f;
    r.sampling.seed = 11;
    r.stop.max_tokens = 24;
    r.n = 3;
    RequestId lid = 0;
    auto want = local_replies(r, &lid);
    const RequestId rid = engine.submit(r);
    std::map<RequestId, test::RequestOutcome> got;
    const auto all_done = [&] { return got[rid].finished && got[rid + 1].finished && got[rid + 2].finished; };
    for (int waits = 0; waits < 300 && !all_done(); ++waits) test::absorb(engine.wait_events(std::chrono::milliseconds(200)), got);
    ASSERT_TRUE(all_done());
    std::set<std::string> texts;
    for (RequestId i = 0; i < 3; ++i) {
        const test::RequestOutcome& g = got[rid + i];
        ASSERT_EQ(g.end.kind, Event::Kind::Finished) << "reply " << i << ": " << g.end.message;
        EXPECT_EQ(g.text, want[lid + i].text) << "reply " << i;
        EXPECT_EQ(g.end.timings.prompt_tokens, int(want[lid + i].end.prompt_ids.size()));
        texts.insert(g.text);
    }
    EXPECT_GT(texts.size(), 1u) << "the replies were sampled alike: the test would not tell them apart";
    EXPECT_EQ(engine.submit(greedy_chat(4)), rid + 3) << "the n replies took ids rid .. rid + 2";
}

TEST_F(RemoteEngineTest, StopStringsEndTheReplyAsLocally) {
    Remote engine = connect_to(options_for(*server_));
    const std::string full = local_reply(greedy_chat(60)).text;
    ASSERT_GT(full.size(), 20u);
    Request r = greedy_chat(60);
    r.stop.stop_strings = {full.substr(12, 4)};
    const auto local = local_reply(r);
    const auto remote = remote_reply(engine, r);
    ASSERT_EQ(local.end.reason, FinishReason::StopString);
    ASSERT_EQ(remote.end.kind, Event::Kind::Finished) << remote.end.message;
    EXPECT_EQ(remote.text, local.text);
    EXPECT_EQ(remote.text, full.substr(0, full.find(r.stop.stop_strings[0])));
    EXPECT_EQ(remote.end.reason, FinishReason::Eos);  // the API says "stop" for both
}

TEST_F(RemoteEngineTest, AWrongKeyGivesThe401MessageAndNeverTheKey) {
    remote::RemoteOptions o = options_for(*server_, "wrong-key-9c1e");
    try {
        Remote engine = connect_to(o);  // no model named: /v1/models is asked, and refused
        FAIL() << "a wrong key was accepted";
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("HTTP 401"), std::string::npos) << m;
        EXPECT_NE(m.find("check --api-key"), std::string::npos) << m;
        EXPECT_EQ(m.find("wrong-key-9c1e"), std::string::npos) << m;
    }
    o.model = "stories260K";
    Remote engine = connect_to(o);
    const auto r = remote_reply(engine, greedy_chat(8));
    ASSERT_EQ(r.end.kind, Event::Kind::Error);
    EXPECT_NE(r.end.message.find("HTTP 401"), std::string::npos) << r.end.message;
    EXPECT_NE(r.end.message.find("API key"), std::string::npos) << r.end.message;  // the server's own words
    EXPECT_EQ(r.end.message.find("wrong-key-9c1e"), std::string::npos) << r.end.message;
    EXPECT_TRUE(r.text.empty());
}

TEST_F(RemoteEngineTest, AnUnknownModelGivesThe404Message) {
    remote::RemoteOptions o = options_for(*server_);
    o.model = "no-such-model";
    Remote engine = connect_to(o);
    const auto r = remote_reply(engine, greedy_chat(8));
    ASSERT_EQ(r.end.kind, Event::Kind::Error);
    EXPECT_NE(r.end.message.find("HTTP 404"), std::string::npos) << r.end.message;
    EXPECT_NE(r.end.message.find("--remote-model"), std::string::npos) << r.end.message;
}

TEST_F(RemoteEngineTest, CancelEndsTheReplyAsCancelled) {
    Remote engine = connect_to(options_for(*server_));
    Request r = greedy_chat(400);
    r.stop.ignore_eos = true;
    const RequestId id = engine.submit(r);
    std::map<RequestId, test::RequestOutcome> out;
    while (!out[id].finished) {
        test::absorb(engine.wait_events(std::chrono::milliseconds(200)), out);
        if (!out[id].text.empty()) engine.cancel(id);
    }
    EXPECT_EQ(out[id].end.kind, Event::Kind::Finished);
    EXPECT_EQ(out[id].end.reason, FinishReason::Cancelled);
}

// The remote engine as every front end sees it: built by make_engine, driven through EngineClient.
// Two requests with two sinks get only their own events, n replies included; fork is refused with
// an Error event through its sink; model_info describes the server, stats what this client saw.
TEST_F(RemoteEngineTest, ThroughEngineClientEachRequestsEventsGoToItsOwnSink) {
    remote::RemoteOptions o = options_for(*server_);
    const std::unique_ptr<EngineClient> client = make_engine(EngineSpec{o});
    const EngineModelInfo& info = client->model_info();
    EXPECT_TRUE(info.remote);
    EXPECT_EQ(info.name, "stories260K");
    EXPECT_EQ(info.backend, "remote");
    EXPECT_EQ(info.architecture, "remote");
    EXPECT_EQ(info.quantization, "as served");
    EXPECT_EQ(info.device, server_->base() + "/v1");
    EXPECT_EQ(info.context_length, 512);  // folio-server's max_model_len for stories260K
    EXPECT_EQ(client->describe(), "remote stories260K at " + server_->base() + "/v1");
    EXPECT_EQ(client->describe().find(kKey), std::string::npos);

    auto a = std::make_shared<EventQueue>(), b = std::make_shared<EventQueue>();
    Request two = greedy_chat(12);
    two.messages = {{"user", "A cat"}};
    two.sampling.temperature = 0.8f;
    two.sampling.seed = 3;
    two.n = 2;
    const RequestId ida = client->submit(greedy_chat(16), EventQueue::sink_of(a));
    const RequestId idb = client->submit(two, EventQueue::sink_of(b));
    std::map<RequestId, test::RequestOutcome> got_a, got_b;
    for (int waits = 0; waits < 300 && !(got_a[ida].finished && got_b[idb].finished && got_b[idb + 1].finished); ++waits) {
        for (const Event& e : a->wait(std::chrono::milliseconds(100))) {
            EXPECT_EQ(e.id, ida) << "an event of another request reached this sink";
            test::absorb({e}, got_a);
        }
        for (const Event& e : b->wait(std::chrono::milliseconds(100))) {
            EXPECT_TRUE(e.id == idb || e.id == idb + 1) << "an event of another request reached this sink";
            EXPECT_FALSE(got_b[e.id].finished) << "an event after the end of reply " << e.id;
            test::absorb({e}, got_b);
        }
    }
    ASSERT_TRUE(got_a[ida].finished && got_b[idb].finished && got_b[idb + 1].finished);
    EXPECT_EQ(got_a[ida].end.kind, Event::Kind::Finished) << got_a[ida].end.message;
    EXPECT_EQ(got_a[ida].text, local_reply(greedy_chat(16)).text);
    for (RequestId id : {idb, idb + 1}) EXPECT_EQ(got_b[id].end.kind, Event::Kind::Finished) << got_b[id].end.message;

    const RequestId child = client->fork(ida, SamplingParams{}, EventQueue::sink_of(a));
    std::vector<Event> forked;
    for (int waits = 0; waits < 50 && forked.empty(); ++waits) forked = a->wait(std::chrono::milliseconds(100));
    ASSERT_EQ(forked.size(), 1u);
    EXPECT_EQ(forked[0].id, child);
    EXPECT_EQ(forked[0].kind, Event::Kind::Error);
    EXPECT_NE(forked[0].message.find("cannot fork"), std::string::npos) << forked[0].message;

    const EngineStats st = client->stats();
    EXPECT_EQ(st.backend, "remote");
    EXPECT_EQ(st.running, 0);
    EXPECT_EQ(st.total_generated_tokens, got_a[ida].end.timings.generated_tokens + got_b[idb].end.timings.generated_tokens +
                                             got_b[idb + 1].end.timings.generated_tokens);
    EXPECT_GT(st.total_prompt_tokens, 0);
}

// Cancel through the client ends every reply of the request, and only that request.
TEST_F(RemoteEngineTest, CancelThroughEngineClientEndsOnlyThatRequest) {
    const std::unique_ptr<EngineClient> client = make_engine(EngineSpec{options_for(*server_)});
    auto q = std::make_shared<EventQueue>(), other = std::make_shared<EventQueue>();
    Request r = greedy_chat(400);
    r.stop.ignore_eos = true;
    const RequestId id = client->submit(r, EventQueue::sink_of(q));
    const RequestId kept = client->submit(greedy_chat(8), EventQueue::sink_of(other));
    std::map<RequestId, test::RequestOutcome> out, kept_out;
    for (int waits = 0; waits < 600 && !(out[id].finished && kept_out[kept].finished); ++waits) {
        test::absorb(q->wait(std::chrono::milliseconds(50)), out);
        test::absorb(other->wait(std::chrono::milliseconds(1)), kept_out);
        if (!out[id].text.empty()) client->cancel(id);
    }
    ASSERT_TRUE(out[id].finished && kept_out[kept].finished);
    EXPECT_EQ(out[id].end.reason, FinishReason::Cancelled);
    EXPECT_EQ(kept_out[kept].end.kind, Event::Kind::Finished);
    EXPECT_NE(kept_out[kept].end.reason, FinishReason::Cancelled);
}

TEST(RemoteEngine, AnUnreachableEndpointIsNamed) {
    // A port that was free a moment ago: nothing listens there.
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    remote::RemoteOptions o;
    o.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
    try {
        Remote engine = connect_to(o);
        FAIL() << "nothing listens there";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot reach the server at " + o.endpoint + "/v1"), std::string::npos) << e.what();
    }
    o.model = "m";
    Remote engine = connect_to(o);
    const auto r = remote_reply(engine, greedy_chat(8));
    ASSERT_EQ(r.end.kind, Event::Kind::Error);
    EXPECT_NE(r.end.message.find("cannot reach the server"), std::string::npos) << r.end.message;
    EXPECT_NE(r.end.message.find("--endpoint"), std::string::npos) << r.end.message;
}

TEST(RemoteEngine, AServerKilledMidReplyGivesAnErrorAndKeepsTheText) {
    ServerProcess server;
    Remote engine = connect_to(options_for(server));
    Request r = greedy_chat(400);
    r.stop.ignore_eos = true;
    const std::string full = local_reply(r).text;
    // The server is frozen the moment the first text arrives (so it cannot finish the reply), then
    // killed: its connection ends without the rest of the stream.
    std::mutex mu;
    std::condition_variable cv;
    std::string text;
    Event end;
    bool ended = false, frozen = false;
    engine.client().submit(r, [&](const Event& ev) {
        if (ev.kind == Event::Kind::Token && !frozen) {
            server.stop_now();
            frozen = true;
        }
        std::lock_guard lock(mu);
        text += ev.text;
        if (ev.kind != Event::Kind::Token) {
            end = ev;
            ended = true;
            cv.notify_all();
        }
    });
    for (int i = 0; i < 200 && !frozen; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(frozen);
    server.kill_now();
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return ended; }));
    ASSERT_EQ(end.kind, Event::Kind::Error);
    EXPECT_NE(end.message.find("broke mid-reply"), std::string::npos) << end.message;
    EXPECT_NE(end.message.find("the text so far is kept"), std::string::npos) << end.message;
    EXPECT_FALSE(text.empty());
    EXPECT_LT(text.size(), full.size());
    EXPECT_EQ(full.substr(0, text.size()), text);  // what came is the start of the real reply
}

}  // namespace
}  // namespace folio
