// "Serve on localhost" on stories260K: the app's engine answers the OpenAI API on loopback while a GUI
// chat streams, both in one batch; the monitor lists the API request as a row of its own; a port in
// use, no model yet (503) and a reload while an API reply streams are each handled.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/monitor/monitor_model.h"
#include "app/gui/monitor/sequence_stats_model.h"
#include "app/gui/shell/local_server.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "tests/app/fixtures_qt.h"

using namespace folio::app;

namespace {

struct HttpAnswer {
    int status = 0;
    QByteArray body;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
};

QNetworkRequest apiRequest(int port, const QString& path) {
    QNetworkRequest r(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)));
    r.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    r.setTransferTimeout(60000);
    return r;
}

HttpAnswer waitFor(QNetworkReply* reply) {
    if (!reply->isFinished()) {
        QSignalSpy done(reply, &QNetworkReply::finished);
        done.wait(60000);
    }
    HttpAnswer a{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(), reply->error()};
    reply->deleteLater();
    return a;
}

QByteArray chatBody(const QString& text, int maxTokens, bool stream = false, int n = 1) {
    QJsonObject m{{"role", "user"}, {"content", text}};
    QJsonObject body{{"model", "stories260K"}, {"messages", QJsonArray{m}}, {"max_tokens", maxTokens}, {"temperature", 0}, {"stream", stream}};
    if (n > 1) {
        body["n"] = n;
        body["ignore_eos"] = true;  // every choice runs to max_tokens
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

}  // namespace

class ServeTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void noModelYetAnswers503();
    void portInUseIsReported();
    void apiAndChatShareOneBatch();
    void aFailedLoadKeepsTheWorkingModel();
    void apiRequestsInFlightAreReportedBeforeASwitch();
    void reloadEndsApiRepliesThenServesTheNewEngine();
    void apiKeyIsRequiredOnceSet();
    void switchingOffClosesThePort();
    void theSwitchIsRestoredOnceAModelIsLoaded();

private:
    void startServing();
    qint64 newConversation(int maxTokens);

    QTemporaryDir dir_;
    QString modelPath_;
    std::unique_ptr<ChatStore> store_;
    std::unique_ptr<ReplyJournal> journal_;
    std::unique_ptr<EngineBridge> bridge_;
    std::unique_ptr<GenerationHub> hub_;
    std::unique_ptr<ChatActions> actions_;
    std::unique_ptr<MonitorModel> monitor_;
    std::unique_ptr<LocalServer> server_;
    QNetworkAccessManager net_;
};

void ServeTest::initTestCase() {
    modelPath_ = folio::test::qtFixturePath("models/stories260K");
    store_ = std::make_unique<ChatStore>(dir_.filePath("history.db"));
    journal_ = std::make_unique<ReplyJournal>(store_.get());
    bridge_ = std::make_unique<EngineBridge>();
    hub_ = std::make_unique<GenerationHub>(store_.get(), journal_.get(), bridge_.get());
    actions_ = std::make_unique<ChatActions>(store_.get(), hub_.get());
    monitor_ = std::make_unique<MonitorModel>([](qint64) { return QString(); });
    connect(bridge_.get(), &EngineBridge::statsUpdated, monitor_.get(), &MonitorModel::apply);
    bridge_->setStatsInterval(10);  // stories260K is fast: snapshot often enough to see a request run
    server_ = std::make_unique<LocalServer>(bridge_.get(), dir_.filePath("settings.ini"));
    QCOMPARE(server_->port(), LocalServer::kDefaultPort);
    net_.setAutoDeleteReplies(false);
    bridge_->loadModel(modelPath_, "cpu");
    QTRY_COMPARE_WITH_TIMEOUT(bridge_->state(), EngineBridge::State::Ready, 60000);
    startServing();
    QVERIFY(server_->modelServed());
}

void ServeTest::cleanupTestCase() {
    server_.reset();
    actions_.reset();
    hub_.reset();
    bridge_.reset();
    monitor_.reset();
    journal_.reset();
    store_.reset();
}

qint64 ServeTest::newConversation(int maxTokens) {
    const qint64 c = actions_->newConversation("t", "Deterministic");
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.maxTokens = maxTokens;
    store_->updateSettings(c, "", s, "Deterministic");
    return c;
}

void ServeTest::startServing() {
    server_->setPort(0);  // any free port: tests run side by side
    server_->setEnabled(true);
    QTRY_VERIFY_WITH_TIMEOUT(server_->listening() || !server_->error().isEmpty(), 20000);
    QVERIFY2(server_->listening(), qPrintable(server_->error()));
    QVERIFY(server_->boundPort() > 0);
    QCOMPARE(server_->url(), QStringLiteral("http://127.0.0.1:%1/v1").arg(server_->boundPort()));
}

// Before any model (an app of its own): the port is open, /health and the API say 503 "Loading
// model" (as folio-server while it loads); then the model loads and the same server answers.
void ServeTest::noModelYetAnswers503() {
    EngineBridge bridge;
    LocalServer server(&bridge, dir_.filePath("other.ini"));
    server.setPort(0);
    server.setEnabled(true);
    QTRY_VERIFY_WITH_TIMEOUT(server.listening() || !server.error().isEmpty(), 20000);
    QVERIFY2(server.listening(), qPrintable(server.error()));
    const int port = server.boundPort();
    HttpAnswer h = waitFor(net_.get(apiRequest(port, "/health")));
    QCOMPARE(h.status, 503);
    QVERIFY2(h.body.contains("Loading model"), h.body.constData());
    HttpAnswer c = waitFor(net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Hi", 4)));
    QCOMPARE(c.status, 503);
    QVERIFY(!server.modelServed());
    QVERIFY2(server.status().contains("503"), qPrintable(server.status()));

    bridge.loadModel(modelPath_, "cpu");
    QTRY_COMPARE_WITH_TIMEOUT(bridge.state(), EngineBridge::State::Ready, 60000);
    QVERIFY(server.modelServed());
    QVERIFY2(server.status().contains("stories260K"), qPrintable(server.status()));
    h = waitFor(net_.get(apiRequest(port, "/health")));
    QCOMPARE(h.status, 200);
    HttpAnswer models = waitFor(net_.get(apiRequest(port, "/v1/models")));
    QCOMPARE(models.status, 200);
    QCOMPARE(QJsonDocument::fromJson(models.body)["data"][0]["id"].toString(), QString("stories260K"));
}

void ServeTest::portInUseIsReported() {
    QTcpServer other;
    QVERIFY(other.listen(QHostAddress::LocalHost, 0));
    server_->setPort(other.serverPort());  // restarts on the taken port
    QTRY_VERIFY_WITH_TIMEOUT(!server_->error().isEmpty(), 20000);
    QVERIFY(!server_->listening());
    QVERIFY2(server_->error().contains(QString::number(other.serverPort())) && server_->error().contains("in use"),
             qPrintable(server_->error()));
    QCOMPARE(server_->status(), server_->error());  // what the view shows
    // Another port: serving again.
    other.close();
    startServing();
}

// The central case: a GUI chat streams while an API request is answered by the same engine. Both end
// with their tokens, the monitor shows the API request as a row "API" beside the chat's row in one
// engine snapshot (both in the engine's running set at once: one continuous batch), and the API's
// greedy reply is the same as when it runs alone.
void ServeTest::apiAndChatShareOneBatch() {
    QVERIFY(server_->modelServed());
    const int port = server_->boundPort();
    // The GUI's reply runs to the end of the context: it is still streaming when the API request
    // arrives and while it runs.
    const qint64 conversation = newConversation(480);
    int guiDeltas = 0;
    bool sawApiRow = false, sawBothRows = false, sawGuiRow = false;
    QObject scope;
    connect(hub_.get(), &GenerationHub::replyChanged, &scope, [&](qint64 c, qint64) {
        if (c == conversation) ++guiDeltas;
    });
    connect(monitor_.get(), &MonitorModel::updated, &scope, [&] {
        SequenceStatsModel* rows = monitor_->sequences();
        bool api = false, gui = false;
        for (int i = 0; i < rows->rowCount(); ++i) {
            const QModelIndex ix = rows->index(i);
            if (rows->data(ix, SequenceStatsModel::StateRole).toString() == "finished") continue;
            if (rows->data(ix, SequenceStatsModel::TitleRole).toString() == "API") api = true;
            if (rows->data(ix, SequenceStatsModel::ConversationIdRole).toLongLong() == conversation) gui = true;
        }
        sawApiRow |= api;
        sawGuiRow |= gui;
        sawBothRows |= api && gui;
    });
    const qint64 reply = actions_->send(conversation, "Once upon a time there was a little fox");
    QVERIFY(reply > 0);
    QTRY_VERIFY_WITH_TIMEOUT(guiDeltas > 0, 30000);  // the chat streams

    QVERIFY(hub_->isGenerating(conversation));  // the API request comes while the chat streams
    const HttpAnswer a = waitFor(net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Tom had a red ball", 200)));
    QCOMPARE(a.status, 200);
    const QJsonObject body = QJsonDocument::fromJson(a.body).object();
    const QString apiText = body["choices"][0]["message"]["content"].toString();
    QVERIFY2(!apiText.isEmpty(), a.body.constData());
    QVERIFY(body["usage"]["completion_tokens"].toInt() > 0);

    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(conversation), 60000);
    const MessageRecord m = store_->message(reply);
    QCOMPARE(m.status, MessageStatus::Complete);
    QVERIFY(!m.content.isEmpty());
    QVERIFY(m.stats.timings.generated_tokens > 0);
    QCOMPARE(m.stats.timings.generated_tokens, 480);  // not cut short by the API request
    QVERIFY2(sawApiRow, "the monitor never listed the API request");
    QVERIFY(sawGuiRow);
    QVERIFY2(sawBothRows, "the API request and the chat never showed in one engine snapshot");

    // Alone, the same greedy request gives the same text: sharing the batch changed nothing.
    const HttpAnswer alone = waitFor(net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Tom had a red ball", 200)));
    QCOMPARE(alone.status, 200);
    QCOMPARE(QJsonDocument::fromJson(alone.body)["choices"][0]["message"]["content"].toString(), apiText);
}

// A folder whose config.json is fine but whose weights are not: the load fails with an error that
// names the file, and the model loaded before stays loaded, serving the API and the chats.
void ServeTest::aFailedLoadKeepsTheWorkingModel() {
    QVERIFY(server_->modelServed());
    const int port = server_->boundPort();
    const QString bad = dir_.filePath("corrupt-weights");
    QVERIFY(QDir().mkpath(bad));
    for (const QString& f : QDir(modelPath_).entryList(QDir::Files)) {
        if (f != QLatin1String("model.safetensors")) QVERIFY(QFile::copy(QDir(modelPath_).filePath(f), QDir(bad).filePath(f)));
    }
    {
        QFile weights(QDir(bad).filePath("model.safetensors"));
        QVERIFY(weights.open(QIODevice::WriteOnly));
        // The header says 1000 bytes of JSON; the file ends 14 bytes into it.
        const char cut[] = "\xe8\x03\x00\x00\x00\x00\x00\x00{\"broken\": tru";
        weights.write(cut, sizeof cut - 1);
    }
    bridge_->loadModel(bad, "cpu");
    QCOMPARE(bridge_->state(), EngineBridge::State::Loading);
    QTRY_VERIFY_WITH_TIMEOUT(bridge_->state() != EngineBridge::State::Loading, 60000);
    QCOMPARE(bridge_->state(), EngineBridge::State::Ready);  // the working model is still there
    QVERIFY2(bridge_->lastError().contains("model.safetensors"), qPrintable(bridge_->lastError()));
    QCOMPARE(bridge_->failedSpec(), bad);
    QCOMPARE(bridge_->modelName(), QString("stories260K"));
    QVERIFY(server_->modelServed());
    QCOMPARE(waitFor(net_.get(apiRequest(port, "/health"))).status, 200);
    const HttpAnswer c = waitFor(net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Hi", 8)));
    QCOMPARE(c.status, 200);
    QVERIFY(!QJsonDocument::fromJson(c.body)["choices"][0]["message"]["content"].toString().isEmpty());
    const qint64 conversation = newConversation(16);
    const qint64 reply = actions_->send(conversation, "Tom had a red ball");
    QVERIFY(reply > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(conversation), 30000);
    QCOMPARE(store_->message(reply).status, MessageStatus::Complete);
    // The next load that works clears the error.
    bridge_->loadModel(modelPath_, "cpu");
    QTRY_COMPARE_WITH_TIMEOUT(bridge_->state(), EngineBridge::State::Ready, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(bridge_->lastError().isEmpty(), 60000);
    QVERIFY(bridge_->failedSpec().isEmpty());
}

// While API requests run the bridge counts them and says what a switch would do to them (the view
// shows it before loading another model); the count goes back to 0 once they are answered.
void ServeTest::apiRequestsInFlightAreReportedBeforeASwitch() {
    const int port = server_->boundPort();
    QCOMPARE(bridge_->apiRequestsInFlight(), 0);
    QVERIFY(bridge_->switchWarning().isEmpty());
    // Eight choices to the end of the context: long enough for a few of the 10 ms stats polls.
    QNetworkReply* reply = net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Once upon a time", 480, true, 8));
    QTRY_VERIFY_WITH_TIMEOUT(bridge_->apiRequestsInFlight() > 0, 30000);
    QVERIFY2(bridge_->switchWarning().contains("API request"), qPrintable(bridge_->switchWarning()));
    QVERIFY2(bridge_->switchWarning().contains("switched"), qPrintable(bridge_->switchWarning()));
    const HttpAnswer a = waitFor(reply);
    QCOMPARE(a.status, 200);
    QTRY_COMPARE_WITH_TIMEOUT(bridge_->apiRequestsInFlight(), 0, 10000);
    QVERIFY(bridge_->switchWarning().isEmpty());
}

// Loading a model again while an API reply streams: the reply ends (no hang), the API says 503 until
// the new engine is there, then serves it on the same port.
void ServeTest::reloadEndsApiRepliesThenServesTheNewEngine() {
    const int port = server_->boundPort();
    QNetworkReply* streaming = net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Once upon a time", 400, true));
    QSignalSpy firstBytes(streaming, &QNetworkReply::readyRead);
    QVERIFY(firstBytes.wait(30000));
    bridge_->loadModel(modelPath_, "cpu");
    const HttpAnswer ended = waitFor(streaming);  // ends, whole or cut: it must not hang
    QCOMPARE(ended.status, 200);
    QVERIFY(ended.body.startsWith("data: "));
    // Whole, or cut with an error event that says why: never OpenAI-foreign finish_reason "cancelled".
    QVERIFY2(!ended.body.contains("\"cancelled\""), ended.body.constData());
    QTRY_COMPARE_WITH_TIMEOUT(bridge_->state(), EngineBridge::State::Ready, 60000);
    QVERIFY(server_->listening());
    QCOMPARE(server_->boundPort(), port);
    const HttpAnswer h = waitFor(net_.get(apiRequest(port, "/health")));
    QCOMPARE(h.status, 200);
    const HttpAnswer c = waitFor(net_.post(apiRequest(port, "/v1/chat/completions"), chatBody("Hi", 8)));
    QCOMPARE(c.status, 200);
    QVERIFY(!QJsonDocument::fromJson(c.body)["choices"][0]["message"]["content"].toString().isEmpty());
}

// A key restarts the server on every address; clients must then send it. Removing it goes back to
// 127.0.0.1 without authentication.
void ServeTest::apiKeyIsRequiredOnceSet() {
    const QString key = QStringLiteral("serve-key-51c0");
    server_->setApiKey(key);
    QTRY_VERIFY_WITH_TIMEOUT(server_->listening() || !server_->error().isEmpty(), 20000);
    QVERIFY2(server_->listening(), qPrintable(server_->error()));
    QVERIFY(server_->status().contains("API key"));
    const int port = server_->boundPort();
    QCOMPARE(waitFor(net_.get(apiRequest(port, "/v1/models"))).status, 401);
    QNetworkRequest withKey = apiRequest(port, "/v1/models");
    withKey.setRawHeader("Authorization", "Bearer " + key.toUtf8());
    QCOMPARE(waitFor(net_.get(withKey)).status, 200);
    server_->setApiKey("");
    QTRY_VERIFY_WITH_TIMEOUT(server_->listening() || !server_->error().isEmpty(), 20000);
    QVERIFY2(server_->listening(), qPrintable(server_->error()));
    QCOMPARE(waitFor(net_.get(apiRequest(server_->boundPort(), "/v1/models"))).status, 200);
}

void ServeTest::switchingOffClosesThePort() {
    const int port = server_->boundPort();
    server_->setEnabled(false);
    QTRY_VERIFY_WITH_TIMEOUT(!server_->listening(), 20000);
    QCOMPARE(server_->status(), QString("Off"));
    // The worker has closed the socket by the time it reports: nothing answers there now.
    const HttpAnswer h = waitFor(net_.get(apiRequest(port, "/health")));
    QCOMPARE(h.error, QNetworkReply::ConnectionRefusedError);
    // The GUI still has its engine.
    QCOMPARE(bridge_->state(), EngineBridge::State::Ready);
}

// The switch is kept: on when the app last ran, it turns on again once a local model is loaded, not
// before; switched off, it stays off at the next start.
void ServeTest::theSwitchIsRestoredOnceAModelIsLoaded() {
    const QString ini = dir_.filePath("restore.ini");
    {
        QSettings last(ini, QSettings::IniFormat);
        last.setValue("serve/enabled", true);
        last.setValue("serve/port", 0);  // any free port
    }
    EngineBridge bridge;
    LocalServer server(&bridge, ini);
    QVERIFY(server.restorePending());
    QTest::qWait(200);
    QVERIFY(!server.enabled());  // no model yet: not switched on
    QVERIFY(!server.listening());
    bridge.loadModel(modelPath_, "cpu");
    QTRY_COMPARE_WITH_TIMEOUT(bridge.state(), EngineBridge::State::Ready, 60000);
    QVERIFY(server.enabled());
    QVERIFY(!server.restorePending());
    QTRY_VERIFY_WITH_TIMEOUT(server.listening() || !server.error().isEmpty(), 20000);
    QVERIFY2(server.modelServed(), qPrintable(server.error()));
    const HttpAnswer h = waitFor(net_.get(apiRequest(server.boundPort(), "/health")));
    QCOMPARE(h.status, 200);
    // Made again with the model already loaded (as at a start whose model loads fast): on at once.
    {
        LocalServer again(&bridge, ini);
        QVERIFY(again.enabled());
        again.setEnabled(false);
        QTRY_VERIFY_WITH_TIMEOUT(!again.listening(), 20000);
    }
    // Switched off: stays off at the next start.
    LocalServer off(&bridge, ini);
    QVERIFY(!off.restorePending());
    QVERIFY(!off.enabled());
    server.setEnabled(false);
    QTRY_VERIFY_WITH_TIMEOUT(!server.listening(), 20000);
}

QTEST_MAIN(ServeTest)
#include "tst_serve.moc"
