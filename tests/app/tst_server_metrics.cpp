// The monitor reading a remote server's Prometheus /metrics: the text-format parser on its own
// (comments, labels, escaped label values, histograms, NaN/+Inf, timestamps, and malformed text named
// by line), vLLM's and Folio's metric names read into one ServerLoad (Folio's body as folio-server
// renders it), throughput between readings, and the poller over loopback HTTP against a canned
// vLLM-style server and against one with no /metrics (404: said once, polling stops).
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>
#include <cmath>

#include "app/gui/monitor/monitor_model.h"
#include "app/gui/monitor/prometheus_text.h"
#include "app/gui/monitor/server_load.h"
#include "app/gui/monitor/server_metrics_poller.h"
#include "app/server/metrics.h"

using namespace folio::app;

namespace {

// What vLLM (V1, two data-parallel engines) publishes, abridged; `tokens` moves the counters.
std::string vllmBody(int tokens) {
    const std::string t = std::to_string(tokens), p = std::to_string(tokens * 3);
    return "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
           "# TYPE vllm:num_requests_running gauge\n"
           "vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 3.0\n"
           "vllm:num_requests_running{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 2.0\n"
           "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
           "# TYPE vllm:num_requests_waiting gauge\n"
           "vllm:num_requests_waiting{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 1.0\n"
           "vllm:num_requests_waiting{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 0.0\n"
           "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
           "# TYPE vllm:kv_cache_usage_perc gauge\n"
           "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 0.5\n"
           "vllm:kv_cache_usage_perc{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 0.25\n"
           "# HELP vllm:prefix_cache_queries Prefix cache queries, in terms of number of queried tokens.\n"
           "# TYPE vllm:prefix_cache_queries counter\n"
           "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 1000.0\n"
           "vllm:prefix_cache_queries_total{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 1000.0\n"
           "# TYPE vllm:prefix_cache_hits counter\n"
           "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 600.0\n"
           "vllm:prefix_cache_hits_total{engine=\"1\",model_name=\"Qwen/Qwen3-8B\"} 400.0\n"
           "# TYPE vllm:prompt_tokens counter\n"
           "vllm:prompt_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} " + p + "\n"
           "# TYPE vllm:generation_tokens counter\n"
           "vllm:generation_tokens_total{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} " + t + "\n"
           "# TYPE vllm:time_to_first_token_seconds histogram\n"
           "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.1\",model_name=\"Qwen/Qwen3-8B\"} 10.0\n"
           "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"Qwen/Qwen3-8B\"} 12.0\n"
           "vllm:time_to_first_token_seconds_sum{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 1.5\n"
           "vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"Qwen/Qwen3-8B\"} 12.0\n"
           "# TYPE python_gc_objects_collected counter\n"
           "python_gc_objects_collected_total{generation=\"0\"} 4242.0\n";
}

// A loopback HTTP server answering every request with `status` and `body(n)` (n: requests so far).
class CannedServer : public QObject {
public:
    CannedServer(int status, std::function<std::string(int)> body) : status_(status), body_(std::move(body)) {
        QVERIFY(server_.listen(QHostAddress::LocalHost, 0));
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server_.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [this, s] {
                    buffer_[s] += s->readAll();
                    if (!buffer_[s].contains("\r\n\r\n")) return;
                    requests.append(QString::fromLatin1(buffer_[s]));
                    buffer_.remove(s);
                    const QByteArray b = QByteArray::fromStdString(body_(int(requests.size())));
                    const QByteArray head = "HTTP/1.1 " + QByteArray::number(status_) + (status_ == 200 ? " OK" : " Not Found") +
                                            "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " + QByteArray::number(b.size()) +
                                            "\r\nConnection: close\r\n\r\n";
                    s->write(head + b);
                    s->disconnectFromHost();
                });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
    }
    QString endpoint() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(server_.serverPort()); }
    QStringList requests;

private:
    QTcpServer server_;
    int status_;
    std::function<std::string(int)> body_;
    QHash<QTcpSocket*, QByteArray> buffer_;
};

QString parseError(const std::string& text) {
    try {
        parse_metrics_text(text);
    } catch (const MetricsParseError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<parsed>");
}

}  // namespace

class ServerMetricsTest : public QObject {
    Q_OBJECT
private slots:
    void parsesSamplesLabelsAndComments();
    void unescapesLabelValues();
    void histogramAndCounterSamplesKnowTheirFamily();
    void specialValuesAndTimestamps();
    void malformedTextIsNamedByLine();
    void readsVllmNames();
    void readsVllmV0Names();
    void readsFolioServersOwnExposition();
    void throughputBetweenReadings();
    void metricsUrlDropsV1();
    void monitorPollsACannedVllmServer();
    void aServerWithoutMetricsIsSaidOnce();
};

void ServerMetricsTest::parsesSamplesLabelsAndComments() {
    const MetricsText m = parse_metrics_text(
        "# HELP up Whether the target is up.\n"
        "# TYPE up gauge\n"
        "# a free comment, and a blank line next\n"
        "\n"
        "up 1\n"
        "http_requests{method=\"post\",code=\"200\",} 1027\r\n"  // a trailing comma and CRLF are allowed
        "  spaced { a = \"1\" , b=\"2\" }   3.5  \n"
        "no_newline_at_end 7");
    QCOMPARE(int(m.samples.size()), 4);
    QCOMPARE(m.types.at("up"), std::string("gauge"));
    QCOMPARE(m.samples[0].name, std::string("up"));
    QCOMPARE(m.samples[0].value, 1.0);
    QVERIFY(m.samples[0].labels.empty());
    QCOMPARE(m.samples[1].label("method"), std::string("post"));
    QCOMPARE(m.samples[1].label("code"), std::string("200"));
    QCOMPARE(m.samples[1].label("absent"), std::string());
    QCOMPARE(m.samples[1].value, 1027.0);
    QCOMPARE(m.samples[2].name, std::string("spaced"));
    QCOMPARE(m.samples[2].label("b"), std::string("2"));
    QCOMPARE(m.samples[2].value, 3.5);
    QCOMPARE(m.samples[3].value, 7.0);
}

void ServerMetricsTest::unescapesLabelValues() {
    const MetricsText m = parse_metrics_text(R"(x{path="C:\\dir\\file",q="say \"hi\"",multi="a\nb",brace="}{,=",other="\t"} 1)" "\n");
    QCOMPARE(int(m.samples.size()), 1);
    const MetricSample& s = m.samples[0];
    QCOMPARE(s.label("path"), std::string("C:\\dir\\file"));
    QCOMPARE(s.label("q"), std::string("say \"hi\""));
    QCOMPARE(s.label("multi"), std::string("a\nb"));
    QCOMPARE(s.label("brace"), std::string("}{,="));
    QCOMPARE(s.label("other"), std::string("\\t"));  // not an escape of the format: kept as it came
    // Folio's own renderer escapes the same way: a model name with quotes and a backslash survives.
    folio::server::ServerMetrics metrics;
    const MetricsText f = parse_metrics_text(metrics.render(folio::EngineStats{}, "my \"odd\\model\"\nname"));
    QVERIFY(!f.samples.empty());
    QCOMPARE(f.samples[0].label("model_name"), std::string("my \"odd\\model\"\nname"));
}

void ServerMetricsTest::histogramAndCounterSamplesKnowTheirFamily() {
    const MetricsText m = parse_metrics_text(vllmBody(10));
    int buckets = 0;
    for (const MetricSample& s : m.samples) {
        if (s.name == "vllm:time_to_first_token_seconds_bucket") {
            ++buckets;
            QCOMPARE(s.family, std::string("vllm:time_to_first_token_seconds"));
        }
        if (s.name == "vllm:time_to_first_token_seconds_sum" || s.name == "vllm:time_to_first_token_seconds_count")
            QCOMPARE(s.family, std::string("vllm:time_to_first_token_seconds"));
        if (s.name == "vllm:prompt_tokens_total") QCOMPARE(s.family, std::string("vllm:prompt_tokens"));
        if (s.name == "vllm:num_requests_running") QCOMPARE(s.family, std::string("vllm:num_requests_running"));
    }
    QCOMPARE(buckets, 2);
    QCOMPARE(m.types.at("vllm:time_to_first_token_seconds"), std::string("histogram"));
    // _sum of a family that is not a histogram is a metric of its own.
    const MetricsText g = parse_metrics_text("# TYPE a_sum gauge\na_sum 1\n# TYPE b gauge\nb_sum 2\n");
    QCOMPARE(g.samples[0].family, std::string("a_sum"));
    QCOMPARE(g.samples[1].family, std::string("b_sum"));
}

void ServerMetricsTest::specialValuesAndTimestamps() {
    const MetricsText m = parse_metrics_text(
        "a NaN\nb +Inf\nc -Inf\nd 1.5e3\ne -0.25 1700000000000\nf 2 1700000000.5\ng{le=\"+Inf\"} 4\nh +3\n");
    QCOMPARE(int(m.samples.size()), 8);
    QVERIFY(std::isnan(m.samples[0].value));
    QVERIFY(std::isinf(m.samples[1].value) && m.samples[1].value > 0);
    QVERIFY(std::isinf(m.samples[2].value) && m.samples[2].value < 0);
    QCOMPARE(m.samples[3].value, 1500.0);
    QCOMPARE(m.samples[4].value, -0.25);  // the timestamp is not the value
    QCOMPARE(m.samples[5].value, 2.0);
    QCOMPARE(m.samples[6].label("le"), std::string("+Inf"));
    QCOMPARE(m.samples[7].value, 3.0);
}

void ServerMetricsTest::malformedTextIsNamedByLine() {
    struct Case {
        const char* text;
        const char* expect;
    };
    for (const Case& c : {Case{"ok 1\nbad{a=\"1\" 2\n", "line 2"}, Case{"ok 1\nbad{a=\"unclosed} 2\n", "not closed"},
                          Case{"x{a=1} 2\n", "double quotes"}, Case{"x twelve\n", "\"twelve\" is not a number"},
                          Case{"x\n", "expected a value"}, Case{"x 1 2 3\n", "after the timestamp"},
                          Case{"x 1 soon\n", "after the value"}, Case{"<html><body>Not Found</body></html>\n", "line 1"},
                          Case{"1x 2\n", "expected a metric name"}, Case{"x{a=\"1\"b=\"2\"} 3\n", "expected ',' or '}'"}}) {
        const QString err = parseError(c.text);
        QVERIFY2(err.contains(QLatin1String(c.expect)), qPrintable(QStringLiteral("%1 -> %2").arg(c.text, err)));
        QVERIFY2(err.startsWith("line "), qPrintable(err));
    }
}

void ServerMetricsTest::readsVllmNames() {
    const ServerLoad l = read_server_load(parse_metrics_text(vllmBody(500)));
    QCOMPARE(l.flavour, std::string("vllm"));
    QCOMPARE(*l.running, 5.0);  // summed over the engines
    QCOMPARE(*l.waiting, 1.0);
    QCOMPARE(*l.kv_usage, 0.375);  // averaged
    QCOMPARE(*l.prefix_hits, 1000.0);
    QCOMPARE(*l.prefix_queries, 2000.0);
    QCOMPARE(*l.prefix_hit_rate(), 0.5);
    QCOMPARE(*l.generation_tokens, 500.0);
    QCOMPARE(*l.prompt_tokens, 1500.0);
}

void ServerMetricsTest::readsVllmV0Names() {
    const ServerLoad l = read_server_load(parse_metrics_text(
        "vllm:num_requests_running{model_name=\"m\"} 2.0\nvllm:gpu_cache_usage_perc{model_name=\"m\"} 0.8\n"
        "vllm:gpu_prefix_cache_hit_rate{model_name=\"m\"} 0.3\nvllm:num_requests_waiting{model_name=\"m\"} NaN\n"));
    QCOMPARE(l.flavour, std::string("vllm"));
    QCOMPARE(*l.running, 2.0);
    QCOMPARE(*l.kv_usage, 0.8);
    QCOMPARE(*l.prefix_hit_rate(), 0.3);
    QVERIFY(!l.waiting);  // NaN: no value
    QVERIFY(!l.generation_tokens);
}

void ServerMetricsTest::readsFolioServersOwnExposition() {
    folio::server::ServerMetrics metrics;
    // Generation tokens count as they come: 2 requests, 3 tokens so far, one finished.
    metrics.observe_first_token(0.02);
    metrics.observe_inter_token(0.01);
    metrics.observe_first_token(0.03);
    metrics.observe_finished(folio::FinishReason::Eos, 0.5, 12);
    metrics.observe_finished(folio::FinishReason::Length, 0.7, 8);
    folio::EngineStats s;
    s.running = 2;
    s.waiting = 3;
    s.kv.blocks_total = 200;
    s.kv.blocks_used = 50;
    s.kv.prefix_lookup_tokens = 40;
    s.kv.prefix_hit_tokens = 10;
    const ServerLoad l = read_server_load(parse_metrics_text(metrics.render(s, "stories260K")));
    QCOMPARE(l.flavour, std::string("folio"));
    QCOMPARE(*l.running, 2.0);
    QCOMPARE(*l.waiting, 3.0);
    QCOMPARE(*l.kv_usage, 0.25);
    QCOMPARE(*l.prefix_hit_rate(), 0.25);
    QCOMPARE(*l.generation_tokens, 3.0);
    QCOMPARE(*l.prompt_tokens, 20.0);
    // Neither's names: no flavour.
    QVERIFY(read_server_load(parse_metrics_text("process_cpu_seconds_total 3\n")).flavour.empty());
}

void ServerMetricsTest::throughputBetweenReadings() {
    ServerLoad a, b;
    a.generation_tokens = 100;
    a.prompt_tokens = 1000;
    b.generation_tokens = 150;
    b.prompt_tokens = 2000;
    const ServerThroughput t = server_throughput(a, b, 0.5);
    QCOMPARE(*t.generation_tok_s, 100.0);
    QCOMPARE(*t.prompt_tok_s, 2000.0);
    // The server restarted (a counter went back), or no time passed: unknown, not negative.
    QVERIFY(!server_throughput(b, a, 0.5).generation_tok_s);
    QVERIFY(!server_throughput(a, b, 0).generation_tok_s);
    ServerLoad none;
    QVERIFY(!server_throughput(none, b, 1).prompt_tok_s);
}

void ServerMetricsTest::metricsUrlDropsV1() {
    QCOMPARE(ServerMetricsPoller::metricsUrl("http://127.0.0.1:8000/v1"), QUrl("http://127.0.0.1:8000/metrics"));
    QCOMPARE(ServerMetricsPoller::metricsUrl("http://127.0.0.1:8000/v1/"), QUrl("http://127.0.0.1:8000/metrics"));
    QCOMPARE(ServerMetricsPoller::metricsUrl("https://host"), QUrl("https://host/metrics"));
    QCOMPARE(ServerMetricsPoller::metricsUrl("http://host/proxy/vllm/v1"), QUrl("http://host/proxy/vllm/metrics"));
}

void ServerMetricsTest::monitorPollsACannedVllmServer() {
    CannedServer server(200, [](int n) { return vllmBody(1000 * n); });  // 1000 tokens more at each reading
    MonitorModel monitor([](qint64) { return QString(); });
    monitor.watchServer(server.endpoint(), "sk-test", 100);
    QVERIFY(monitor.watchingServer());
    QTRY_VERIFY_WITH_TIMEOUT(monitor.serverLoad().generationTokS() > 0, 10000);
    const ServerLoadView v = monitor.serverLoad();
    QVERIFY(v.known());
    QCOMPARE(v.flavour(), QString("vllm"));
    QCOMPARE(v.running(), 5.0);
    QCOMPARE(v.waiting(), 1.0);
    QCOMPARE(v.kvUsage(), 0.375);
    QCOMPARE(v.prefixHitRate(), 0.5);
    QVERIFY(v.promptTokS() > v.generationTokS());  // 3x the tokens
    QVERIFY(monitor.live());
    QVERIFY(monitor.serverStatus().isEmpty());
    // The plots follow the server: running requests, and the throughput of the latest readings.
    QCOMPARE(monitor.batchSeries()->latest(), 5.0);
    QCOMPARE(monitor.decodeSeries()->latest(), v.generationTokS());
    QCOMPARE(monitor.prefillSeries()->latest(), v.promptTokS());
    QVERIFY(server.requests.size() >= 2);
    QVERIFY2(server.requests.front().startsWith("GET /metrics "), qPrintable(server.requests.front()));
    QVERIFY2(server.requests.front().contains("Authorization: Bearer sk-test"), qPrintable(server.requests.front()));
    // Stopping stops the requests.
    monitor.stopWatchingServer();
    QVERIFY(!monitor.watchingServer());
    QVERIFY(!monitor.serverLoad().known());
    const qsizetype n = server.requests.size();
    QTest::qWait(400);
    QVERIFY(server.requests.size() <= n + 1);  // at most the one already on its way
}

void ServerMetricsTest::aServerWithoutMetricsIsSaidOnce() {
    CannedServer server(404, [](int) { return std::string("{\"detail\":\"Not Found\"}"); });
    MonitorModel monitor([](qint64) { return QString(); });
    QSignalSpy problems(&monitor.poller(), &ServerMetricsPoller::problemChanged);
    monitor.watchServer(server.endpoint(), QString(), 50);
    QTRY_VERIFY_WITH_TIMEOUT(!monitor.serverStatus().isEmpty(), 10000);
    QVERIFY2(monitor.serverStatus().contains("404"), qPrintable(monitor.serverStatus()));
    QVERIFY2(monitor.serverStatus().contains("/metrics"), qPrintable(monitor.serverStatus()));
    QTest::qWait(500);  // ten ticks' worth
    QCOMPARE(server.requests.size(), 1);  // polling stopped
    QCOMPARE(problems.size(), 1);         // and it was said once
    QVERIFY(!monitor.poller().polling());
    QVERIFY(!monitor.serverLoad().known());
    QVERIFY(!server.requests.front().contains("Authorization"));  // no key, no header
}

QTEST_MAIN(ServerMetricsTest)
#include "tst_server_metrics.moc"
