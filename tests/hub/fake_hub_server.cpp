#include "tests/hub/fake_hub_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

#include "engine/hub/http_client.h"

extern char** environ;

namespace folio::test {

using nlohmann::json;

std::string pseudo_random_bytes(size_t n, uint32_t seed) {
    std::mt19937 gen(seed);
    std::string out(n, '\0');
    for (auto& c : out) c = char(gen() & 0xFF);
    return out;
}

FakeHubSpec& FakeHubSpec::file(const std::string& repo, const std::string& path, const std::string& bytes, bool lfs,
                               const std::string& commit) {
    FileSpec& f = files_[repo][commit][path];
    f.bytes = bytes;
    f.lfs = lfs;
    if (!repo_fields_[repo].contains("refs")) repo_fields_[repo]["refs"] = {{"main", commit}};
    return *this;
}

FakeHubSpec& FakeHubSpec::ref(const std::string& repo, const std::string& name, const std::string& commit) {
    repo_fields_[repo]["refs"][name] = commit;
    return *this;
}

FakeHubSpec& FakeHubSpec::repo_field(const std::string& repo, const std::string& key, const json& value) {
    repo_fields_[repo][key] = value;
    return *this;
}

FakeHubSpec& FakeHubSpec::listed_size(const std::string& repo, const std::string& path, uint64_t size,
                                      const std::string& commit) {
    files_[repo][commit][path].listed_size = int64_t(size);
    return *this;
}

FakeHubSpec& FakeHubSpec::fault(const std::string& key, const json& fault) {
    faults_[key] = fault;
    return *this;
}

json FakeHubSpec::write(const std::string& dir) const {
    json spec = {{"repos", json::object()}, {"faults", faults_}};
    int n = 0;
    for (const auto& [repo, commits] : files_) {
        json r = repo_fields_.count(repo) ? repo_fields_.at(repo) : json::object();
        r["commits"] = json::object();
        for (const auto& [commit, files] : commits) {
            json fs = json::object();
            for (const auto& [path, f] : files) {
                const std::string file = dir + "/content-" + std::to_string(n++);
                write_file(file, f.bytes);
                fs[path] = {{"file", file}, {"lfs", f.lfs}};
                if (f.listed_size >= 0) fs[path]["listed_size"] = f.listed_size;
            }
            r["commits"][commit] = {{"files", fs}};
        }
        spec["repos"][repo] = r;
    }
    return spec;
}

namespace {

std::string read_line_with_timeout(int fd, int timeout_ms) {
    std::string line;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < until) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        char c;
        const ssize_t n = ::read(fd, &c, 1);
        if (n <= 0) break;
        if (c == '\n') return line;
        line += c;
    }
    return line;
}

hub::HttpResponse get(int port, const std::string& path) {
    hub::HttpRequest req;
    req.url = "http://127.0.0.1:" + std::to_string(port) + path;
    return hub::http_send(req, nullptr, nullptr);
}

// A minimal POST over a raw socket (the library has no POST: the Hub API Folio uses needs none).
void post_json(int port, const std::string& path, const std::string& body) {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(s);
        throw std::runtime_error("cannot reach the fake hub");
    }
    const std::string req = "POST " + path + " HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    ::send(s, req.data(), req.size(), 0);
    char buf[4096];
    while (::recv(s, buf, sizeof buf, 0) > 0) {
    }
    ::close(s);
}

}  // namespace

FakeHub::FakeHub(const FakeHubSpec& spec) {
    const std::string spec_path = dir_.file("spec.json");
    write_file(spec_path, spec.write(dir_.path()).dump());
    int in_pipe[2], out_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    std::vector<std::string> args = {"python3", "-I", "-S", FOLIO_FAKE_HUB_SCRIPT, "--spec", spec_path};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, "python3", &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    if (rc != 0) throw std::runtime_error("cannot start python3 (is it installed?) for " FOLIO_FAKE_HUB_SCRIPT);
    pid_ = pid;
    stdin_fd_ = in_pipe[1];
    const std::string line = read_line_with_timeout(out_pipe[0], 15000);
    ::close(out_pipe[0]);
    if (std::sscanf(line.c_str(), "PORTS %d %d", &hub_port_, &cdn_port_) != 2)
        throw std::runtime_error("the fake hub did not start (it printed '" + line + "')");
}

FakeHub::~FakeHub() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (pid_ > 0) {
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

json FakeHub::log() const { return json::parse(get(hub_port_, "/_test/log").body); }
void FakeHub::set_faults(const json& faults) { post_json(hub_port_, "/_test/faults", faults.dump()); }
void FakeHub::reset_log() { post_json(hub_port_, "/_test/reset", "{}"); }

hub::HubConfig FakeHub::config(const std::string& cache_dir) const {
    hub::HubConfig c;
    c.endpoint = endpoint();
    c.cache_dir = cache_dir;
    return c;
}

int count_requests(const json& log, const std::string& server, const std::string& fragment) {
    int n = 0;
    for (const auto& e : log)
        if (e.value("server", "") == server && e.value("path", "").find(fragment) != std::string::npos) ++n;
    return n;
}

}  // namespace folio::test
