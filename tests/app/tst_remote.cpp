// "Connect to a server" against folio-server on loopback (started and killed by this test): the model
// list, chats (two at once, as side-by-side sends them), the remote's timings on each reply, the
// monitor reading the server's /metrics, a server killed mid-reply (the partial reply saved and
// marked), and the API key never in the log.
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sstream>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/models/remote_connection.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/monitor/sequence_stats_model.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "tests/app/fixtures_qt.h"

using namespace folio::app;

namespace {

const QString kKey = QStringLiteral("sk-folio-test-7f3a9c2e");

// folio-server on a free loopback port; returns its base URL once /health would answer (it prints
// "ready").
QString startServer(QProcess& p, const QString& model) {
    p.setProgram(QStringLiteral(FOLIO_SERVER_EXE));
    p.setArguments({"--port", "0", "--model", model, "--backend", "cpu", "--cpu-activations", "exact", "--threads", "1",
                    "--api-key", kKey});
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start();
    if (!p.waitForStarted(20000)) return {};
    QByteArray out;
    QString base;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 60000) {
        p.waitForReadyRead(200);
        out += p.readAllStandardOutput();
        const auto m = QRegularExpression(R"(listening on (http://127\.0\.0\.1:[0-9]+))").match(QString::fromUtf8(out));
        if (m.hasMatch()) base = m.captured(1);
        if (!base.isEmpty() && out.contains("ready")) return base;
        if (p.state() == QProcess::NotRunning) break;
    }
    return {};
}

}  // namespace

class RemoteTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void wrongKeyIsReported();
    void listsModelsAndConnects();
    void theConnectionIsRestoredAtStart();
    void twoChatsAtOnceWithTheRemotesTimings();
    void monitorReadsTheServersMetrics();
    void draftsAreTheApisN();
    void serverKilledMidReplyKeepsThePartialReply();
    void keyNeverInTheLog();

private:
    qint64 newConversation(int maxTokens);

    QTemporaryDir dir_;
    QProcess server_;
    QString base_;
    std::ostringstream log_;
    std::shared_ptr<spdlog::logger> previousLogger_;
    std::unique_ptr<ChatStore> store_;
    std::unique_ptr<ReplyJournal> journal_;
    std::unique_ptr<EngineBridge> bridge_;
    std::unique_ptr<GenerationHub> hub_;
    std::unique_ptr<ChatActions> actions_;
    std::unique_ptr<RemoteConnection> remote_;
};

void RemoteTest::initTestCase() {
    // Everything the app logs (the worker and the remote engine use spdlog's default logger).
    previousLogger_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("folio", std::make_shared<spdlog::sinks::ostream_sink_mt>(log_));
    logger->set_level(spdlog::level::trace);
    spdlog::set_default_logger(logger);

    base_ = startServer(server_, folio::test::qtFixturePath("models/stories260K"));
    QVERIFY2(!base_.isEmpty(), server_.readAllStandardError().constData());
    store_ = std::make_unique<ChatStore>(dir_.filePath("history.db"));
    journal_ = std::make_unique<ReplyJournal>(store_.get());
    bridge_ = std::make_unique<EngineBridge>();
    hub_ = std::make_unique<GenerationHub>(store_.get(), journal_.get(), bridge_.get());
    actions_ = std::make_unique<ChatActions>(store_.get(), hub_.get());
    remote_ = std::make_unique<RemoteConnection>(bridge_.get(), dir_.filePath("settings.ini"));
    remote_->setEndpoint(base_ + "/v1");
}

void RemoteTest::cleanupTestCase() {
    remote_.reset();
    actions_.reset();
    hub_.reset();
    bridge_.reset();
    journal_.reset();
    store_.reset();
    if (server_.state() != QProcess::NotRunning) {
        server_.terminate();
        server_.waitForFinished(10000);
    }
    spdlog::set_default_logger(previousLogger_);  // log_ dies with this object
}

qint64 RemoteTest::newConversation(int maxTokens) {
    const qint64 c = actions_->newConversation("t", "Deterministic");
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.maxTokens = maxTokens;
    store_->updateSettings(c, "", s, "Deterministic");
    return c;
}

void RemoteTest::wrongKeyIsReported() {
    remote_->setApiKey("not-the-key");
    remote_->fetchModels();
    QTRY_VERIFY_WITH_TIMEOUT(!remote_->fetching(), 20000);
    QVERIFY(remote_->models().isEmpty());
    QVERIFY2(remote_->error().contains("key", Qt::CaseInsensitive), qPrintable(remote_->error()));
}

void RemoteTest::listsModelsAndConnects() {
    remote_->setApiKey(kKey);
    remote_->fetchModels();
    QTRY_VERIFY_WITH_TIMEOUT(!remote_->fetching(), 20000);
    QVERIFY2(remote_->error().isEmpty(), qPrintable(remote_->error()));
    QCOMPARE(remote_->models(), QStringList{"stories260K"});
    QCOMPARE(remote_->model(), QString("stories260K"));  // the first is chosen
    remote_->connectToServer();
    QTRY_VERIFY_WITH_TIMEOUT(bridge_->state() != EngineBridge::State::Loading, 20000);
    QVERIFY2(bridge_->state() == EngineBridge::State::Ready, qPrintable(bridge_->lastError()));
    QCOMPARE(bridge_->backendName(), QString("remote"));
    QCOMPARE(bridge_->modelName(), QString("stories260K"));
    QVERIFY(remote_->connected());
    // Stored for the next start.
    RemoteConnection again(bridge_.get(), dir_.filePath("settings.ini"));
    QCOMPARE(again.endpoint(), base_ + "/v1");
    QCOMPARE(again.model(), QString("stories260K"));
    QVERIFY(again.hasApiKey());
}

// Chats went to the server when the app last ran: the next start connects again; once a local model
// has been loaded instead, it does not.
void RemoteTest::theConnectionIsRestoredAtStart() {
    const QString ini = dir_.filePath("settings.ini");  // as listsModelsAndConnects left it
    EngineBridge bridge;
    RemoteConnection again(&bridge, ini);
    QVERIFY(again.restore());
    QTRY_VERIFY_WITH_TIMEOUT(bridge.state() == EngineBridge::State::Ready || !bridge.lastError().isEmpty(), 20000);
    QVERIFY2(bridge.state() == EngineBridge::State::Ready, qPrintable(bridge.lastError()));
    QCOMPARE(bridge.backendName(), QString("remote"));
    QCOMPARE(bridge.modelName(), QString("stories260K"));
    QVERIFY(again.connected());
    // A local model replaces the server: the next start loads that, not the server.
    bridge.loadModel(folio::test::qtFixturePath("models/stories260K"), "cpu");
    QTRY_VERIFY_WITH_TIMEOUT(bridge.state() == EngineBridge::State::Ready && bridge.backendName() == QLatin1String("cpu"), 60000);
    EngineBridge later;
    RemoteConnection next(&later, ini);
    QVERIFY(!next.restore());
    QCOMPARE(later.state(), EngineBridge::State::NoModel);
    // Connected again by hand: remembered once more.
    next.connectToServer();
    QTRY_VERIFY_WITH_TIMEOUT(next.connected() || !later.lastError().isEmpty(), 20000);
    QVERIFY2(next.connected(), qPrintable(later.lastError()));
    EngineBridge third;
    RemoteConnection thirdStart(&third, ini);
    QVERIFY(thirdStart.restore());
    QTRY_VERIFY_WITH_TIMEOUT(thirdStart.connected() || !third.lastError().isEmpty(), 20000);
    QVERIFY2(thirdStart.connected(), qPrintable(third.lastError()));
}

// Side-by-side sends one prompt to several conversations at once: here two replies stream together
// from the server, each saved whole with the timings the remote gives (what the monitor shows).
void RemoteTest::twoChatsAtOnceWithTheRemotesTimings() {
    QVERIFY(remote_->connected());
    const qint64 a = newConversation(64), b = newConversation(64);
    const qint64 ra = actions_->send(a, "Once upon a time");
    const qint64 rb = actions_->send(b, "Tom had a red ball");
    QVERIFY(ra > 0 && rb > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(a) && !hub_->isGenerating(b), 60000);
    // The monitor's rows for them, as the app records each finished reply (AppController).
    MonitorModel monitor([](qint64) { return QString(); });
    for (auto [c, r] : {std::pair{a, ra}, std::pair{b, rb}}) {
        const MessageRecord m = store_->message(r);
        QCOMPARE(m.status, MessageStatus::Complete);
        QVERIFY(!m.content.isEmpty());
        QVERIFY(m.stats.timings.generated_tokens > 0);  // the server's usage
        QVERIFY(m.stats.timings.ttft_ms > 0);            // latency as the client sees it
        monitor.recordFinished(c, m.stats);
    }
    SequenceStatsModel* rows = monitor.sequences();
    QCOMPARE(rows->rowCount(), 2);
    for (int i = 0; i < 2; ++i) {
        const QModelIndex ix = rows->index(i);
        QVERIFY(rows->data(ix, SequenceStatsModel::GeneratedTokensRole).toInt() > 0);
        QVERIFY(rows->data(ix, SequenceStatsModel::DecodeRole).toDouble() > 0);  // tokens/s
        QVERIFY(rows->data(ix, SequenceStatsModel::TtftRole).toDouble() > 0);    // latency
    }
}

// The monitor reads the connected folio-server's /metrics (with the key, which every route but /health
// asks for): Folio's names, the tokens of the replies above, the throughput of a reply while it is
// read; a wrong key is said once.
void RemoteTest::monitorReadsTheServersMetrics() {
    QVERIFY(remote_->connected());
    MonitorModel monitor([](qint64) { return QString(); });
    monitor.watchServer(bridge_->device(), remote_->apiKey(), 100);
    QTRY_VERIFY_WITH_TIMEOUT(monitor.serverLoad().known(), 20000);
    const ServerLoadView v = monitor.serverLoad();
    QVERIFY2(monitor.serverStatus().isEmpty(), qPrintable(monitor.serverStatus()));
    QCOMPARE(v.flavour(), QString("folio"));
    QCOMPARE(v.running(), 0.0);  // nothing is being served now
    QCOMPARE(v.waiting(), 0.0);
    QVERIFY(v.kvUsage() >= 0 && v.kvUsage() <= 1);
    QVERIFY2(v.prefixHitRate() >= 0 && v.prefixHitRate() <= 1, qPrintable(QString::number(v.prefixHitRate())));  // prompts were looked up
    QVERIFY(v.load().generation_tokens && *v.load().generation_tokens > 0);  // the replies of the test above
    QVERIFY(v.load().prompt_tokens && *v.load().prompt_tokens > 0);
    // A reply served while the monitor reads: the server's generated tokens show as throughput.
    const qint64 c = newConversation(64);
    QVERIFY(actions_->send(c, "Tom had a red ball") > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(monitor.decodeSeries()->peak() > 0, 10000);
    QVERIFY(monitor.prefillSeries()->peak() > 0);

    MonitorModel wrongKey([](qint64) { return QString(); });
    QSignalSpy problems(&wrongKey.poller(), &ServerMetricsPoller::problemChanged);
    wrongKey.watchServer(bridge_->device(), "not-the-key", 50);
    QTRY_VERIFY_WITH_TIMEOUT(!wrongKey.serverStatus().isEmpty(), 20000);
    QVERIFY2(wrongKey.serverStatus().contains("401"), qPrintable(wrongKey.serverStatus()));
    QTest::qWait(300);  // several more refusals
    QCOMPARE(problems.size(), 1);
    QVERIFY(!wrongKey.serverLoad().known());
}

// SIGSTOP at the first text (so the reply cannot finish), then SIGKILL: the reply ends as an error
// that says so, its text so far saved and marked.
// A chat's drafts from a server: one API request with n = 3 (folio-server answers it), each draft
// streamed and stored as from the local engine, each ended with its own finish reason.
void RemoteTest::draftsAreTheApisN() {
    QVERIFY(remote_->connected());
    const qint64 c = actions_->newConversation("drafts", "Deterministic");
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.maxTokens = 24;
    s.temperature = 0.8;
    s.seed = 5;
    store_->updateSettings(c, "", s, "Deterministic");
    store_->setDrafts(c, 3);
    const qint64 reply = actions_->send(c, "Once upon a time");
    QVERIFY(reply > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 60000);
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Complete);
    const QList<DraftRecord> drafts = store_->drafts(reply);
    QCOMPARE(drafts.size(), 3);
    QSet<QString> texts;
    for (const DraftRecord& d : drafts) {
        QVERIFY2(!d.content.isEmpty(), qPrintable(QStringLiteral("draft %1 is empty").arg(d.index)));
        QVERIFY(!d.finishReason.isEmpty());
        texts << d.content;
    }
    QVERIFY2(texts.size() > 1, "the drafts were sampled alike");
    QCOMPARE(m.content, drafts[0].content);  // draft 0 is the reply until another is chosen
}

void RemoteTest::serverKilledMidReplyKeepsThePartialReply() {
    QVERIFY(remote_->connected());
    const qint64 c = newConversation(480);
    bool frozen = false;
    QObject scope;
    connect(bridge_.get(), &ReplySource::delta, &scope, [&](quint64, const QString&, int, int) {
        if (!frozen) {
            ::kill(pid_t(server_.processId()), SIGSTOP);
            frozen = true;
        }
    });
    const qint64 reply = actions_->send(c, "Once upon a time there was a little fox");
    QTRY_VERIFY_WITH_TIMEOUT(frozen, 30000);
    ::kill(pid_t(server_.processId()), SIGKILL);
    server_.waitForFinished(10000);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Error);
    QVERIFY2(!m.content.isEmpty(), "the partial reply was not saved");
    QVERIFY2(m.error.contains("mid-reply"), qPrintable(m.error));
}

void RemoteTest::keyNeverInTheLog() {
    spdlog::default_logger()->flush();
    const std::string log = log_.str();
    QVERIFY2(log.find("stories260K") != std::string::npos, "nothing was logged: the check would prove nothing");
    QVERIFY2(log.find(kKey.toStdString()) == std::string::npos, "the API key is in the log");
    QVERIFY(log.find("not-the-key") == std::string::npos);
    // It is stored (for the next start), readable by its owner only.
    QFile ini(dir_.filePath("settings.ini"));
    QVERIFY(ini.open(QIODevice::ReadOnly));
    QVERIFY(ini.readAll().contains(kKey.toUtf8()));
    QCOMPARE(ini.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
}

QTEST_MAIN(RemoteTest)
#include "tst_remote.moc"
