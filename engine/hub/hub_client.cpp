#include "engine/hub/hub_client.h"

#include <algorithm>
#include <thread>

#include "engine/hub/repo_ref.h"

namespace folio::hub {

namespace {

std::string strip_etag(std::string e) {
    if (e.rfind("W/", 0) == 0) e = e.substr(2);
    if (e.size() >= 2 && e.front() == '"' && e.back() == '"') e = e.substr(1, e.size() - 2);
    return e;
}

int64_t parse_size(const std::string& s) {
    if (s.empty()) return -1;
    int64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return -1;
        v = v * 10 + (c - '0');
    }
    return v;
}

std::string status_text(const HttpResponse& r) {
    std::string s = "HTTP " + std::to_string(r.status);
    const std::string msg = r.header("x-error-message");
    if (!msg.empty()) s += ": " + msg;
    return s;
}

}  // namespace

std::string link_next(const std::string& link_header) {
    // <https://host/api/...?cursor=x>; rel="next", <...>; rel="prev"
    size_t pos = 0;
    while (pos < link_header.size()) {
        const auto open = link_header.find('<', pos);
        if (open == std::string::npos) break;
        const auto close = link_header.find('>', open);
        if (close == std::string::npos) break;
        const auto end = link_header.find(',', close);
        const std::string params = link_header.substr(close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
        if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
            return link_header.substr(open + 1, close - open - 1);
        if (end == std::string::npos) break;
        pos = end + 1;
    }
    return {};
}

HubClient::HubClient(HubConfig config, RetryPolicy policy, const std::atomic<bool>* cancel)
    : config_(std::move(config)), policy_(policy), cancel_(cancel), endpoint_origin_(url_origin(config_.endpoint)) {}

void HubClient::require_online(const std::string& what) const {
    if (config_.offline)
        throw HubError(HubError::Kind::Offline, "offline mode (HF_HUB_OFFLINE=1): " + what +
                                                    " needs the network; unset HF_HUB_OFFLINE to reach " + config_.endpoint);
}

HttpRequest HubClient::base_request(const std::string& url) const {
    HttpRequest r;
    r.url = url;
    r.connect_timeout_s = policy_.connect_timeout_s;
    r.low_speed_time_s = policy_.stall_timeout_s;
    if (!config_.token.empty() && url_origin(url) == endpoint_origin_) r.headers.push_back("Authorization: Bearer " + config_.token);
    return r;
}

std::string HubClient::resolve_url(const std::string& repo_id, const std::string& revision, const std::string& path) const {
    return config_.endpoint + "/" + repo_id + "/resolve/" + url_quote(revision, "") + "/" + url_quote(path, "/");
}

void HubClient::backoff(int attempt) const {
    auto delay = policy_.base_delay * (1 << std::min(attempt - 1, 16));
    delay = std::min<std::chrono::milliseconds>(delay, policy_.max_delay);
    const auto until = std::chrono::steady_clock::now() + delay;
    while (std::chrono::steady_clock::now() < until) {
        if (cancelled()) throw Cancelled();
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(20), delay));
    }
}

void HubClient::throw_status(const HttpResponse& r, const std::string& url, const std::string& repo_id,
                             const std::string& path) const {
    const std::string code = r.header("x-error-code");
    const bool have_token = !config_.token.empty();
    const std::string where = config_.endpoint;
    const std::string how_to_give =
        "give Folio a token with read access (made at " + where +
        "/settings/tokens): set HF_TOKEN, run `huggingface-cli login`, or paste it under Models › Download › Hugging Face token";
    if (r.status == 401 || r.status == 403 || code == "GatedRepo") {
        if (code == "GatedRepo") {
            if (!have_token)
                throw HubError(HubError::Kind::Access,
                               repo_id + " is a gated repository: accept its conditions at " + repo_page(repo_id) +
                                   " while logged in, then " + how_to_give + " (" + status_text(r) + ")");
            throw HubError(HubError::Kind::Access,
                           repo_id + " is a gated repository and the token that was sent has no access to it: accept its "
                                     "conditions at " + repo_page(repo_id) +
                               " with the account the token belongs to (some authors approve requests by hand), or give "
                               "another token (" + status_text(r) + ")");
        }
        if (r.status == 401 && have_token && code != "RepoNotFound")
            throw HubError(HubError::Kind::Access, where + " refused the token for " + repo_id +
                                                       " (it may be invalid or expired): make a new one at " + where +
                                                       "/settings/tokens (" + status_text(r) + ")");
        if (!have_token)
            throw HubError(HubError::Kind::Access, (repo_id.empty() ? url : repo_id) + " was not found on " + where +
                                                       ", or it is private: check the name; for a private repository " +
                                                       how_to_give + " (" + status_text(r) + ")");
        throw HubError(HubError::Kind::Access, "access to " + (repo_id.empty() ? url : repo_id) +
                                                   " was refused with the token that was sent: check that its account "
                                                   "can read the repository (" + status_text(r) + ")");
    }
    if (r.status == 404) {
        if (code == "RepoNotFound")
            throw HubError(HubError::Kind::NotFound, repo_id + " does not exist on " + where + " (check the spelling)");
        if (code == "RevisionNotFound")
            throw HubError(HubError::Kind::NotFound, repo_id + " has no branch, tag or commit by that name (" + status_text(r) + ")");
        if (code == "EntryNotFound")
            throw HubError(HubError::Kind::NotFound, repo_id + " has no file " + path + " (" + status_text(r) + ")");
        throw HubError(HubError::Kind::NotFound, where + " answered 404 Not Found for " + url);
    }
    if (r.status == 429)
        throw HubError(HubError::Kind::Server, where + " is rate limiting requests (HTTP 429); wait a minute and try again", true);
    if (r.status >= 500)
        throw HubError(HubError::Kind::Server, url_origin(url) + " answered " + status_text(r) + " for " + url +
                                                   "; the server has trouble, try again later", true);
    throw HubError(HubError::Kind::Protocol, "unexpected answer " + status_text(r) + " for " + url);
}

nlohmann::json HubClient::get_json(const std::string& path_and_query, const std::string& repo_id, std::string* next_link) const {
    return get_json_url(config_.endpoint + path_and_query, repo_id, next_link);
}

nlohmann::json HubClient::get_json_url(const std::string& start_url, const std::string& repo_id, std::string* next_link) const {
    require_online(repo_id.empty() ? std::string("searching the Hub") : "getting " + repo_id);
    for (int attempt = 1;; ++attempt) {
        try {
            std::string url = start_url;
            HttpResponse r;
            // Relative redirects (a renamed repository) are followed on the same origin only.
            for (int hop = 0; hop < 10; ++hop) {
                HttpRequest req = base_request(url);
                req.compressed = true;
                req.headers.push_back("Accept: application/json");
                r = http_send(req, nullptr, cancel_);
                if (r.status >= 300 && r.status < 400 && !r.redirect_url.empty() &&
                    url_origin(r.redirect_url) == url_origin(url)) {
                    url = r.redirect_url;
                    continue;
                }
                break;
            }
            if (r.status < 200 || r.status >= 300) throw_status(r, url, repo_id, "");
            if (next_link) *next_link = link_next(r.header("link"));
            try {
                return nlohmann::json::parse(r.body);
            } catch (const nlohmann::json::exception& e) {
                throw HubError(HubError::Kind::Protocol, url + " did not answer with JSON (" + e.what() +
                                                             "): is HF_ENDPOINT (" + config_.endpoint + ") a Hugging Face Hub?");
            }
        } catch (const HubError& e) {
            if (!e.retryable() || attempt >= policy_.max_attempts) throw;
        } catch (const TransportError& e) {
            if (attempt >= policy_.max_attempts)
                throw HubError(HubError::Kind::Network, std::string("cannot reach ") + config_.endpoint + " (" + e.what() +
                                                            ") after " + std::to_string(attempt) +
                                                            " attempts: check the connection (or HF_ENDPOINT)",
                               true);
        }
        backoff(attempt);
    }
}

HttpResponse HubClient::fetch_file(const std::string& start_url, uint64_t range_start, BodySink& sink,
                                   const std::string& repo_id, const std::string& path, FileHeaders& headers) const {
    require_online("downloading " + repo_id);
    std::string url = start_url;
    headers = FileHeaders{};
    for (int hop = 0; hop < 10; ++hop) {
        HttpRequest req = base_request(url);
        req.range_start = range_start;
        req.headers.push_back("Accept-Encoding: identity");
        HttpResponse r = http_send(req, &sink, cancel_);
        // The Hub's own answer (the redirect to the CDN, or the file itself) carries these; the
        // CDN's does not, so the first value seen is kept.
        if (headers.commit.empty()) headers.commit = r.header("x-repo-commit");
        if (headers.etag.empty()) {
            std::string e = r.header("x-linked-etag");
            if (e.empty()) e = r.header("etag");
            headers.etag = strip_etag(e);
        }
        if (headers.size < 0) headers.size = parse_size(r.header("x-linked-size"));
        if (r.status >= 300 && r.status < 400) {
            if (r.redirect_url.empty())
                throw HubError(HubError::Kind::Protocol, url + " redirected without a Location header");
            url = r.redirect_url;
            continue;
        }
        if (r.status == 200 || r.status == 206 || r.status == 416) {
            if (headers.size < 0 && r.status == 200) headers.size = parse_size(r.header("content-length"));
            return r;
        }
        throw_status(r, url, repo_id, path);
    }
    throw HubError(HubError::Kind::Protocol, "too many redirects for " + start_url);
}

}  // namespace folio::hub
