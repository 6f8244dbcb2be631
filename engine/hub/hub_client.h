#pragma once
// Talking to the Hub (or a mirror): JSON answers with retries, file bodies through redirects, and
// every refusal turned into a message that says which repository and what to do. The token goes to
// the configured endpoint's origin only: a redirect to another host (the CDN) never carries it.
#include <atomic>
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/core/error.h"
#include "engine/hub/http_client.h"
#include "engine/hub/hub_config.h"

namespace folio::hub {

struct RetryPolicy {
    int max_attempts = 6;                        // per request (and per file, counting resumed ones)
    std::chrono::milliseconds base_delay{500};   // doubled after every failure...
    std::chrono::milliseconds max_delay{15000};  // ...up to this
    long connect_timeout_s = 10;
    long stall_timeout_s = 30;                   // no byte for this long: the connection is given up
};

// A Hub answer a user must act on. `retryable`: a server error or a broken connection, for which
// waiting and trying again may help.
class HubError : public Error {
public:
    enum class Kind { Offline, Access, NotFound, Server, Network, Protocol };
    HubError(Kind kind, const std::string& message, bool retryable = false)
        : Error(message), kind_(kind), retryable_(retryable) {}
    Kind kind() const { return kind_; }
    bool retryable() const { return retryable_; }

private:
    Kind kind_;
    bool retryable_;
};

// What the Hub said about a file on the way to its bytes (from the first answer that had it: the
// redirect from the Hub, not the CDN's answer).
struct FileHeaders {
    std::string commit;       // X-Repo-Commit
    std::string etag;         // X-Linked-Etag, else ETag; quotes and W/ removed
    int64_t size = -1;        // X-Linked-Size, else Content-Length of the final answer
};

class HubClient {
public:
    explicit HubClient(HubConfig config, RetryPolicy policy = {}, const std::atomic<bool>* cancel = nullptr);

    const HubConfig& config() const { return config_; }
    const RetryPolicy& policy() const { return policy_; }
    bool cancelled() const { return cancel_ && cancel_->load(); }
    const std::atomic<bool>* cancel_flag() const { return cancel_; }

    // GET endpoint + path_and_query as JSON, retrying server errors and broken connections.
    // `repo_id` names the repository in messages ("" for searches). `next_link`, when given, receives
    // the Link header's rel="next" URL (pagination) or "". Throws HubError (Offline first of all when
    // the config is offline: no request is made), Cancelled.
    nlohmann::json get_json(const std::string& path_and_query, const std::string& repo_id,
                            std::string* next_link = nullptr) const;
    // The same for an absolute URL (a next page).
    nlohmann::json get_json_url(const std::string& url, const std::string& repo_id, std::string* next_link = nullptr) const;

    // One attempt at a file: GET url (Range from range_start when > 0), following up to 10 redirects
    // (relative ones too) and sending the token only to the endpoint's origin. The body of the final
    // 2xx answer goes to `sink`; the answer (200, 206 or 416) is returned with the Hub's headers in
    // `headers`. Other statuses throw HubError (retryable for 5xx and 429); a broken connection
    // throws TransportError; cancel throws Cancelled.
    HttpResponse fetch_file(const std::string& url, uint64_t range_start, BodySink& sink, const std::string& repo_id,
                            const std::string& path, FileHeaders& headers) const;

    // Waits before attempt `attempt` (1 = the first retry), returning early (throwing Cancelled) when
    // cancelled.
    void backoff(int attempt) const;

    // "{endpoint}/{repo}/resolve/{revision}/{path}" with the pieces quoted as the Hub wants them.
    std::string resolve_url(const std::string& repo_id, const std::string& revision, const std::string& path) const;
    // "{endpoint}/{repo}": where a person accepts a gated repository's conditions.
    std::string repo_page(const std::string& repo_id) const { return config_.endpoint + "/" + repo_id; }

private:
    void require_online(const std::string& what) const;
    HttpRequest base_request(const std::string& url) const;
    [[noreturn]] void throw_status(const HttpResponse& r, const std::string& url, const std::string& repo_id,
                                   const std::string& path) const;

    HubConfig config_;
    RetryPolicy policy_;
    const std::atomic<bool>* cancel_;
    std::string endpoint_origin_;
};

// The URL of rel="next" in a Link header, or "".
std::string link_next(const std::string& link_header);

}  // namespace folio::hub
