#include "engine/hub/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

namespace folio::hub {

namespace {

constexpr size_t kMaxKeptBody = 256u << 20;  // a tree listing of a huge repository stays far below

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

struct Transfer {
    CURL* curl = nullptr;
    BodySink* sink = nullptr;
    const std::atomic<bool>* cancel = nullptr;
    HttpResponse response;
    bool began = false;
    bool cancelled = false;
    bool overflow = false;

    bool cancel_requested() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string line(data, size * n);
    // A new status line starts a new set of headers (a 100 Continue before the real answer).
    if (line.rfind("HTTP/", 0) == 0) {
        t->response.headers.clear();
        return size * n;
    }
    const auto colon = line.find(':');
    if (colon != std::string::npos) t->response.headers[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
    return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const size_t bytes = size * n;
    if (t->cancel_requested()) {
        t->cancelled = true;
        return 0;
    }
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    const bool to_sink = t->sink && status >= 200 && status < 300;
    if (!to_sink) {
        if (t->response.body.size() + bytes > kMaxKeptBody) {
            t->overflow = true;
            return 0;
        }
        t->response.body.append(data, bytes);
        return bytes;
    }
    if (!t->began) {
        t->began = true;
        t->response.status = status;
        if (!t->sink->begin(t->response)) {
            t->response.stopped_by_sink = true;
            return 0;
        }
    }
    if (!t->sink->write(data, bytes)) {
        t->response.stopped_by_sink = true;
        return 0;
    }
    return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto* t = static_cast<Transfer*>(user);
    if (t->cancel_requested()) {
        t->cancelled = true;
        return 1;
    }
    return 0;
}

struct CurlHandle {
    CURL* h = curl_easy_init();
    curl_slist* headers = nullptr;
    ~CurlHandle() {
        curl_slist_free_all(headers);
        if (h) curl_easy_cleanup(h);
    }
};

}  // namespace

std::string HttpResponse::header(const std::string& lower_case_name) const {
    auto it = headers.find(lower_case_name);
    return it == headers.end() ? std::string() : it->second;
}

HttpResponse http_send(const HttpRequest& request, BodySink* sink, const std::atomic<bool>* cancel) {
    global_init();
    if (cancel && cancel->load()) throw Cancelled();
    CurlHandle c;
    if (!c.h) throw TransportError("cannot start an HTTP transfer (curl_easy_init failed)");
    Transfer t;
    t.curl = c.h;
    t.sink = sink;
    t.cancel = cancel;

    for (const auto& h : request.headers) c.headers = curl_slist_append(c.headers, h.c_str());
    if (request.range_start > 0)
        c.headers = curl_slist_append(c.headers, ("Range: bytes=" + std::to_string(request.range_start) + "-").c_str());

    curl_easy_setopt(c.h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
    curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);  // worker threads: no SIGALRM for DNS timeouts
    curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c.h, CURLOPT_USERAGENT, "folio/0.1 (hf-hub cache compatible)");
    curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, request.connect_timeout_s);
    curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, request.low_speed_time_s);
    curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, request.low_speed_bytes);
    if (request.compressed) curl_easy_setopt(c.h, CURLOPT_ACCEPT_ENCODING, "");
    if (sink) curl_easy_setopt(c.h, CURLOPT_BUFFERSIZE, 256L * 1024);  // file bodies: fewer, larger writes
    if (request.head) curl_easy_setopt(c.h, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &t);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);

    const CURLcode rc = curl_easy_perform(c.h);
    curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &t.response.status);
    if (t.cancelled) throw Cancelled();
    if (rc == CURLE_WRITE_ERROR && t.response.stopped_by_sink) return t.response;
    if (rc == CURLE_WRITE_ERROR && t.overflow)
        throw TransportError(request.url + ": the answer is larger than " + std::to_string(kMaxKeptBody >> 20) + " MiB");
    if (rc != CURLE_OK) {
        std::string what = errbuf[0] ? errbuf : curl_easy_strerror(rc);
        throw TransportError(request.url + ": " + what);
    }
    // An empty 2xx body never reached on_body.
    if (sink && !t.began && t.response.status >= 200 && t.response.status < 300) {
        t.began = true;
        if (!sink->begin(t.response)) t.response.stopped_by_sink = true;
    }
    if (t.response.status >= 300 && t.response.status < 400) {
        char* location = nullptr;
        curl_easy_getinfo(c.h, CURLINFO_REDIRECT_URL, &location);
        if (location) t.response.redirect_url = location;
    }
    return t.response;
}

std::string url_origin(const std::string& url) {
    CURLU* u = curl_url();
    if (!u) return {};
    std::string out;
    if (curl_url_set(u, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
        char *scheme = nullptr, *host = nullptr, *port = nullptr;
        if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
            out = lower(scheme) + "://" + lower(host) + ":" + port;
        curl_free(scheme);
        curl_free(host);
        curl_free(port);
    }
    curl_url_cleanup(u);
    return out;
}

}  // namespace folio::hub
