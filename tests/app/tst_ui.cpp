// The real QML, offscreen, on stories260K: a model loading leaves the person in the view they are in
// and shows its phase; type a prompt and press Enter, watch the reply stream and find it in the
// database; side-by-side to three columns at once; the monitor's figures move; the message box takes
// the keyboard when a chat is opened or made.
#include <cmath>
#include <functional>
#include <QQmlApplicationEngine>
#include <QQmlComponent>
#include <QPointer>
#include <QSignalSpy>
#include <QQuickItem>
#include <QQuickWindow>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/shell/app_controller.h"
#include "app/gui/shell/color_scheme.h"
#include "app/gui/shell/log_model.h"
#include "app/gui/shell/qml_setup.h"
#include "app/gui/store/chat_store.h"
#include "tests/app/fixtures_qt.h"
#include "tests/hub/fake_hub_server.h"

#include <filesystem>

using namespace folio::app;

namespace {

// An item by objectName through the visual tree (a Repeater's delegates have no QObject parent,
// so QObject::findChild does not see them); null when there is none.
QQuickItem* findItem(QQuickItem* root, const QString& name) {
    if (root->objectName() == name) return root;
    for (QQuickItem* child : root->childItems())
        if (QQuickItem* found = findItem(child, name)) return found;
    return nullptr;
}

// A popup (a dialog) by objectName: its QObject parent is the item it is declared in.
QObject* findPopup(QQuickItem* root, const QString& name) {
    for (QObject* o : root->children())
        if (o->objectName() == name && o->inherits("QQuickPopup")) return o;
    for (QQuickItem* child : root->childItems())
        if (QObject* found = findPopup(child, name)) return found;
    return nullptr;
}

// QTest::keyClicks exists for widgets only; type into a QQuickWindow key by key.
void typeText(QWindow* window, const char* text) {
    for (const char* p = text; *p; ++p) QTest::keyClick(window, *p);
}

}  // namespace

class UiTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void enterWithoutAModelSaysSo();
    void loadingKeepsTheViewAndShowsItsPhase();
    void typeSendAndFindInDatabase();
    void keysStayOnTheVisiblePage();
    void sideBySideToThreeSessions();
    void monitorMovesWhileGenerating();
    void themeButtonGoesBackToTheSystem();
    void serveSwitchOnTheModelsPage();
    void findDownloadVerifyAndOpenWhileChatting();
    void openingOrMakingAChatFocusesTheMessageBox();
    void everyDialogOpens();
    void threeDraftsAndTheSwitcher();
    void deletingAModelOrADownloadAsksFirst();
    void typedServerAddressAndReadableMenus();
    void theWindowSizeIsRemembered();

private:
    template <typename T = QQuickItem>
    T* find(const char* name) {
        T* item = window_->findChild<T*>(name);
        if (!item) qFatal("no QML item named %s", name);
        return item;
    }
    void setGreedy(qint64 conversationId, int maxTokens);
    int page() const { return window_->property("page").toInt(); }
    // Scrolls the page that holds `item` so that it is on screen, then clicks its middle.
    void click(QQuickItem* item) {
        auto scroll = [&] {
            for (QQuickItem* p = item->parentItem(); p; p = p->parentItem()) {
                if (!p->inherits("QQuickFlickable")) continue;
                QQuickItem* content = p->property("contentItem").value<QQuickItem*>();
                const qreal y = item->mapToItem(content, QPointF(0, 0)).y();
                const qreal maxY = std::max<qreal>(0, p->property("contentHeight").toReal() - p->height());
                p->setProperty("contentY", std::clamp<qreal>(y - p->height() / 3, 0, maxY));
                break;
            }
        };
        // A frame or two to lay out the scrolled page, until the item sits still inside the window
        // (scrolled again while the page still grows: a list filling in moves it).
        QPointF at = item->mapToScene(QPointF(item->width() / 2, item->height() / 2)), before;
        for (int i = 0; i < 50 && (i == 0 || at != before || at.y() < 0 || at.y() >= window_->height()); ++i) {
            scroll();
            QTest::qWait(20);
            before = at;
            at = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
        }
        QTest::mouseClick(window_, Qt::LeftButton, {}, item->mapToScene(QPointF(item->width() / 2, item->height() / 2)).toPoint());
    }

    QTemporaryDir dir_;
    std::unique_ptr<folio::test::FakeHub> hub_;  // the Download page talks to it (HF_ENDPOINT)
    LogModel log_;
    std::unique_ptr<AppController> app_;
    std::unique_ptr<QQmlApplicationEngine> engine_;
    QQuickWindow* window_ = nullptr;
};

void UiTest::initTestCase() {
    // A stand-in Hub on loopback holding stories260K; its weights stall half-way until the test lets
    // them go, so that a download is provably in progress while a chat runs.
    folio::test::FakeHubSpec spec;
    namespace fs = std::filesystem;
    for (const auto& e : fs::directory_iterator(folio::test::qtFixturePath("models/stories260K").toStdString())) {
        const std::string name = e.path().filename().string();
        spec.file("karpathy/stories260K", name, folio::test::read_file(e.path().string()), name == "model.safetensors");
    }
    spec.repo_field("karpathy/stories260K", "tags", nlohmann::json::array({"safetensors", "text-generation"}));
    spec.fault("karpathy/stories260K/model.safetensors", {{"kind", "stall"}, {"at", 500000}, {"seconds", 600}, {"times", -1}});
    hub_ = std::make_unique<folio::test::FakeHub>(spec);
    qputenv("HF_ENDPOINT", QByteArray::fromStdString(hub_->endpoint()));
    qputenv("HF_HUB_CACHE", QDir(dir_.path()).filePath("hub-cache").toUtf8());
    qputenv("HF_HOME", QDir(dir_.path()).filePath("hf-home").toUtf8());
    qunsetenv("HF_TOKEN");
    qunsetenv("HF_HUB_OFFLINE");

    AppOptions options;
    options.dataDir = dir_.path();
    options.model = folio::test::qtFixturePath("models/stories260K");
    options.backend = "cpu";
    app_ = std::make_unique<AppController>(options, &log_);
    engine_ = std::make_unique<QQmlApplicationEngine>();
    setupQml(*engine_);
    engine_->setInitialProperties({{"app", QVariant::fromValue(app_.get())}});
    engine_->load(mainQmlUrl());
    QCOMPARE(engine_->rootObjects().size(), 1);
    window_ = qobject_cast<QQuickWindow*>(engine_->rootObjects().first());
    QVERIFY(window_);
    QVERIFY(QTest::qWaitForWindowExposed(window_));
    window_->requestActivate();  // shortcuts (Ctrl+N, Ctrl+2 ...) go to the active window
    QVERIFY(QTest::qWaitForWindowActive(window_));
    // No chat yet, but a model to load (--model): the app opens on the chat, not on Models. The model
    // is loaded by the second test.
    QCOMPARE(page(), 0);
}

// Enter before any model is loaded: nothing is sent, the text stays, and the line under the box says
// why and what to do.
void UiTest::enterWithoutAModelSaysSo() {
    QCOMPARE(app_->engine()->state(), EngineBridge::State::NoModel);
    QQuickItem* input = find("composerInput");
    QQuickItem* hint = find("composerHint");
    const QString usual = hint->property("text").toString();
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "hello");
    QTest::keyClick(window_, Qt::Key_Return);
    QCOMPARE(input->property("text").toString(), QString("hello"));
    QCOMPARE(app_->allConversations()->rowCount(), 0);
    QVERIFY2(hint->property("text").toString().contains("No model is loaded"), qPrintable(hint->property("text").toString()));
    input->setProperty("text", QString());
    QCOMPARE(hint->property("text").toString(), usual);  // until the text changes
}

void UiTest::loadingKeepsTheViewAndShowsItsPhase() {
    QTest::keyClick(window_, Qt::Key_2, Qt::ControlModifier);  // Side by side, while the model loads
    QCOMPARE(page(), 1);
    QStringList phases;
    QObject scope;
    connect(app_->engine(), &EngineBridge::loadProgressChanged, &scope, [&] {
        const QString p = app_->engine()->loadPhase();
        if (!p.isEmpty() && (phases.isEmpty() || phases.last() != p)) phases << p;
    });
    app_->start();
    QCOMPARE(app_->engine()->state(), EngineBridge::State::Loading);
    QQuickItem* status = find("loadStatus");
    QVERIFY(status->isVisible());  // above the Side by side view, with the phase under its bar
    QQuickItem* phaseText = nullptr;
    for (QQuickItem* i : status->findChildren<QQuickItem*>("loadPhase")) phaseText = i;
    QVERIFY(phaseText);
    QCOMPARE(phaseText->property("text").toString(), QString("starting"));
    QTRY_COMPARE_WITH_TIMEOUT(app_->engine()->state(), EngineBridge::State::Ready, 60000);
    QVERIFY(log_.latest().isEmpty() || log_.latestLevel() != "error");
    // The phases of the load, as the engine reported them, in order.
    QCOMPARE(phases, (QStringList{"starting", "reading config", "opening the checkpoint", "mapping weights",
                                  "preparing weights for the CPU", "allocating the KV cache"}));
    // The model is ready and the person is still where they were.
    QTest::qWait(100);
    QCOMPARE(page(), 1);
    QVERIFY(!status->isVisible());
}

void UiTest::cleanupTestCase() {
    engine_.reset();
    app_.reset();
    hub_.reset();
}

// Models › Library: the "Serve on localhost" switch turns the app's LocalServer on and off, and the
// card shows where it listens.
void UiTest::serveSwitchOnTheModelsPage() {
    QTest::keyClick(window_, Qt::Key_4, Qt::ControlModifier);
    click(find("libraryTabButton"));
    LocalServer* server = app_->localServer();
    server->setPort(0);  // any free port (the card's field is for people: 1..65535)
    QQuickItem* toggle = find("serveSwitch");
    QTRY_VERIFY_WITH_TIMEOUT(toggle->isVisible(), 5000);
    click(toggle);
    QVERIFY(server->enabled());
    // On looks on: the track in the accent colour, not the muted grey of a disabled control.
    QQmlComponent themed(engine_.get());
    themed.setData("import QtQuick\nimport Folio.Ui\nQtObject { property color accent: Theme.accent }\n", QUrl("qrc:/accent.qml"));
    std::unique_ptr<QObject> theme(themed.create());
    QVERIFY2(theme, qPrintable(themed.errorString()));
    QCOMPARE(toggle->property("indicator").value<QQuickItem*>()->property("color").value<QColor>(),
             theme->property("accent").value<QColor>());
    QTRY_VERIFY_WITH_TIMEOUT(server->listening(), 20000);
    QVERIFY(server->modelServed());
    QTRY_VERIFY(find("serveStatus")->property("text").toString().startsWith("Serving stories260K"));
    QCOMPARE(find("serveUrl")->property("text").toString(), server->url());  // once, selectable to copy
    QVERIFY(server->url().startsWith("http://127.0.0.1:"));
    click(toggle);
    QVERIFY(!server->enabled());
    QTRY_VERIFY_WITH_TIMEOUT(!server->listening(), 20000);
    QCOMPARE(find("serveStatus")->property("text").toString(), QString("Off"));
}

void UiTest::findDownloadVerifyAndOpenWhileChatting() {
    // Models › Download: search the Hub, download what it found.
    QTest::keyClick(window_, Qt::Key_4, Qt::ControlModifier);
    click(find("downloadTabButton"));
    QQuickItem* field = find("hubSearchField");
    QTRY_VERIFY(field->isVisible());
    field->forceActiveFocus();
    QTRY_VERIFY(field->hasActiveFocus());
    typeText(window_, "stories");
    QTest::keyClick(window_, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(findItem(window_->contentItem(), "download_karpathy/stories260K"), 15000);
    click(findItem(window_->contentItem(), "download_karpathy/stories260K"));
    DownloadListModel* downloads = app_->downloads();
    QTRY_COMPARE_WITH_TIMEOUT(downloads->count(), 1, 5000);
    const int stateRole = downloads->roleNames().key("state"), messageRole = downloads->roleNames().key("message");
    auto state = [&] { return downloads->data(downloads->index(0), stateRole).toString(); };
    auto message = [&] { return downloads->data(downloads->index(0), messageRole).toString(); };
    const int progressRole = downloads->roleNames().key("progress");
    QTRY_VERIFY2_WITH_TIMEOUT(downloads->data(downloads->index(0), progressRole).toDouble() > 0.3, qPrintable(state() + ": " + message()), 30000);

    // The server stalls the weights: meanwhile a chat runs to its end.
    const qint64 c = app_->chat()->newConversation();
    setGreedy(c, 24);
    app_->chat()->send(c, "Once upon a time");
    QTRY_VERIFY_WITH_TIMEOUT(!app_->hub()->isGenerating(c), 60000);
    QCOMPARE(app_->store()->activePath(c).last().status, MessageStatus::Complete);
    QVERIFY2(state() == "downloading", qPrintable(state() + ": " + message()));  // still downloading

    // Pause from the page; the server recovers; resume finishes from where it stopped and verifies.
    QTRY_VERIFY(findItem(window_->contentItem(), "pause_karpathy/stories260K"));
    click(findItem(window_->contentItem(), "pause_karpathy/stories260K"));
    QTRY_COMPARE_WITH_TIMEOUT(state(), QString("paused"), 10000);
    hub_->set_faults({{"karpathy/stories260K/model.safetensors", nullptr}});
    QTRY_VERIFY(findItem(window_->contentItem(), "resume_karpathy/stories260K"));
    click(findItem(window_->contentItem(), "resume_karpathy/stories260K"));
    QTRY_VERIFY2_WITH_TIMEOUT(state() == "done", qPrintable(state() + ": " + message()), 30000);
    bool resumed = false;
    for (const auto& e : hub_->log())
        if (e["server"] == "cdn" && e["range"].is_string()) resumed = true;
    QVERIFY2(resumed, "the resumed download did not continue with a Range request");

    // Open it from the page: the engine loads the verified snapshot.
    QQuickItem* load = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((load = findItem(window_->contentItem(), "loadDownloaded_karpathy/stories260K")) && load->isVisible(), 5000);
    click(load);
    QTRY_COMPARE_WITH_TIMEOUT(app_->engine()->state(), EngineBridge::State::Ready, 60000);
    QVERIFY(app_->engine()->modelSpec().endsWith("/snapshots/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"));
    QCOMPARE(app_->engine()->modelName(), QString("karpathy/stories260K"));
    // And the library lists it.
    QTRY_VERIFY_WITH_TIMEOUT(app_->localModels()->count() >= 1, 10000);
}

void UiTest::setGreedy(qint64 conversationId, int maxTokens) {
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.maxTokens = maxTokens;
    app_->store()->updateSettings(conversationId, "", s, "Deterministic");
    app_->settings()->reload();
}

void UiTest::typeSendAndFindInDatabase() {
    // Ctrl+N makes a new chat, as a person would start one.
    QTest::keyClick(window_, Qt::Key_N, Qt::ControlModifier);
    const qint64 c = app_->currentConversationId();
    QVERIFY(c > 0);
    setGreedy(c, 48);
    QQuickItem* input = find("composerInput");
    input->forceActiveFocus();
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "Once upon a time");
    QTest::keyClick(window_, Qt::Key_Return, Qt::ShiftModifier);  // a new line, not a send
    typeText(window_, "there was a dog");
    QCOMPARE(input->property("text").toString(), QString("Once upon a time\nthere was a dog"));
    QSignalSpy generating(app_->messages(), &MessageListModel::generatingChanged);
    QTest::keyClick(window_, Qt::Key_Return);
    // stories260K may finish within the key press's event processing: look for the change, not the state.
    QTRY_VERIFY(generating.count() >= 1);
    QCOMPARE(input->property("text").toString(), QString());  // the composer cleared on send
    QTRY_VERIFY_WITH_TIMEOUT(!app_->messages()->generating(), 60000);
    QCOMPARE(app_->messages()->rowCount(), 2);
    const QString shown = app_->messages()->lastText();
    QVERIFY(!shown.isEmpty());
    const QList<MessageRecord> path = app_->store()->activePath(c);
    QCOMPARE(path.size(), 2);
    QCOMPARE(path[0].content, QString("Once upon a time\nthere was a dog"));
    QCOMPARE(path[1].content, shown);
    QCOMPARE(path[1].status, MessageStatus::Complete);
    QCOMPARE(path[1].model, app_->engine()->modelName());
    // The chat got its title from the prompt and is findable by full-text search.
    QCOMPARE(app_->store()->conversation(c).title, QString("Once upon a time"));
    QVERIFY(!app_->store()->search("dog").isEmpty());
}

// Keys typed on another page never reach the chat's message box: a draft is in the composer, the
// person goes to Models, clicks the page's background, types and presses Enter; then types a server
// address into its field. Nothing is sent, the draft is as it was, and it is there again in Chats.
void UiTest::keysStayOnTheVisiblePage() {
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    const qint64 c = app_->currentConversationId();
    QVERIFY(c > 0);
    const int sentBefore = app_->store()->activePath(c).size();
    QQuickItem* input = find("composerInput");
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "draft");
    QCOMPARE(input->property("text").toString(), QString("draft"));

    QTest::keyClick(window_, Qt::Key_4, Qt::ControlModifier);
    QCOMPARE(page(), 3);
    QQuickItem* models = find("modelsView");
    QTRY_VERIFY(models->isVisible());
    // The right end of the page's title row is empty background.
    QTest::mouseClick(window_, Qt::LeftButton, {}, models->mapToScene(QPointF(models->width() - 4, 20)).toPoint());
    QVERIFY2(!input->hasActiveFocus(), "the hidden message box still has the keyboard");
    QSignalSpy generating(app_->messages(), &MessageListModel::generatingChanged);
    typeText(window_, "hidden send");
    QTest::keyClick(window_, Qt::Key_Return);
    QTest::qWait(100);
    QCOMPARE(generating.count(), 0);
    QCOMPARE(app_->store()->activePath(c).size(), sentBefore);
    QCOMPARE(input->property("text").toString(), QString("draft"));

    // A server address typed into its field goes there, and only there.
    click(find("libraryTabButton"));
    RemoteConnection* remote = app_->remote();
    const QString endpointBefore = remote->endpoint();
    QQuickItem* endpoint = find("remoteEndpointField");
    click(endpoint);
    QTRY_VERIFY(endpoint->hasActiveFocus());
    QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);  // typed over what is there
    typeText(window_, "http://127.0.0.1:9/v1");
    QTest::keyClick(window_, Qt::Key_Return);
    QCOMPARE(remote->endpoint(), QString("http://127.0.0.1:9/v1"));
    QCOMPARE(input->property("text").toString(), QString("draft"));
    QCOMPARE(app_->store()->activePath(c).size(), sentBefore);
    remote->setEndpoint(endpointBefore);

    // Back in Chats the draft waits in the message box, which has the keyboard again.
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY(input->hasActiveFocus());
    QCOMPARE(input->property("text").toString(), QString("draft"));
    input->setProperty("text", QString());
}

void UiTest::sideBySideToThreeSessions() {
    QTest::keyClick(window_, Qt::Key_2, Qt::ControlModifier);
    CompareModel* cmp = app_->compare();
    cmp->startNew(3, "You tell short stories.");
    QCOMPARE(cmp->rowCount(), 3);
    for (int i = 0; i < 3; ++i) {
        // Each column keeps its own preset; only the length is capped for the test.
        const ConversationRecord rec = app_->store()->conversation(cmp->conversationAt(i));
        SamplingSettings s = rec.sampling;
        s.maxTokens = 40;
        if (s.seed < 0) s.seed = 7;  // reproducible even for the sampling presets
        app_->store()->updateSettings(rec.id, rec.systemPrompt, s, rec.preset);
    }
    QQuickItem* composer = find("compareComposer");
    QQuickItem* input = nullptr;
    for (QQuickItem* i : composer->findChildren<QQuickItem*>("composerInput")) input = i;
    QVERIFY(input);
    input->forceActiveFocus();
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "The little bird");
    int mostAtOnce = 0;
    QObject scope;
    connect(app_->hub(), &GenerationHub::replyStarted, &scope, [&] { mostAtOnce = std::max(mostAtOnce, app_->hub()->activeCount()); });
    QTest::keyClick(window_, Qt::Key_Return);
    QTRY_VERIFY(mostAtOnce > 0);
    QCOMPARE(mostAtOnce, 3);  // all three at once through the one engine
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->generating(), 90000);
    for (int i = 0; i < 3; ++i) {
        const QList<MessageRecord> path = app_->store()->activePath(cmp->conversationAt(i));
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[0].content, QString("The little bird"));
        QVERIFY(!path[1].content.isEmpty());
        QCOMPARE(path[1].status, MessageStatus::Complete);
    }
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
}

void UiTest::monitorMovesWhileGenerating() {
    QTest::keyClick(window_, Qt::Key_3, Qt::ControlModifier);
    MonitorModel* mon = app_->monitor();
    // stories260K decodes in milliseconds: sample the engine often enough to see it at work.
    app_->engine()->setStatsInterval(20);
    QTRY_VERIFY_WITH_TIMEOUT(mon->live(), 10000);
    QVERIFY(mon->stats().kv.blocks_total > 0);
    QCOMPARE(mon->stats().kv_cache_dtype, std::string("fp32"));  // the CPU backend's own KV type (no FP8 chosen)
    QVERIFY(mon->stats().kv_bytes_per_block > 0);
    const qint64 updatesBefore = mon->updates();
    const qint64 generatedBefore = mon->stats().total_generated_tokens;
    const qint64 c = app_->chat()->newConversation();
    setGreedy(c, 200);
    bool sawBusy = false;
    QObject scope;  // ends the connection with this function, even when a check fails
    connect(mon, &MonitorModel::updated, &scope, [&] {
        if (mon->stats().running > 0 && mon->stats().kv.blocks_used > 0 && mon->sequences()->rowCount() > 0) sawBusy = true;
    });
    app_->chat()->send(c, "Once upon a time, in a big forest");
    QTRY_VERIFY_WITH_TIMEOUT(!app_->hub()->isGenerating(c), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(mon->stats().total_generated_tokens > generatedBefore, 5000);
    QVERIFY(mon->updates() > updatesBefore);
    QVERIFY(mon->decodeSeries()->peak() > 0);
    // Either a snapshot caught the sequence running, or its prompt blocks are now in the prefix cache.
    QVERIFY2(sawBusy || mon->stats().kv.blocks_cached > 0, "no stats snapshot showed the sequence or its blocks");
    QVERIFY(mon->stats().peak_blocks_used > 0);
    QVERIFY(mon->stats().kv.prefix_lookup_tokens > 0);
    // The conversation stays in the table with its real prefill and decode speeds.
    SequenceStatsModel* seqs = mon->sequences();
    QTRY_VERIFY(seqs->rowCount() > 0);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::ConversationIdRole).toLongLong(), c);
    QCOMPARE(seqs->data(seqs->index(0), SequenceStatsModel::StateRole).toString(), QString("finished"));
    QVERIFY(seqs->data(seqs->index(0), SequenceStatsModel::PrefillRole).toDouble() > 0);
    QVERIFY(seqs->data(seqs->index(0), SequenceStatsModel::DecodeRole).toDouble() > 0);
    // The view reads the engine's KvCounters through the gadget: its figures, not a copy's.
    const folio::KvCounters& kv = mon->stats().kv;
    const QString line = find("prefixCacheLine")->property("text").toString();
    QVERIFY2(line.contains(QStringLiteral("%1 of %2 prompt tokens reused").arg(kv.prefix_hit_tokens).arg(kv.prefix_lookup_tokens)),
             qPrintable(line));
    // The pool's storage (EngineStats next to its KvCounters) reaches the KV pool card.
    const QString pool = find("kvPoolSize")->property("text").toString();
    QVERIFY2(pool.contains(QStringLiteral("%1 blocks").arg(kv.blocks_total)) && pool.contains(QStringLiteral("fp32")) &&
                 pool.contains(MonitorModel::formatBytes(double(mon->stats().kv_bytes_per_block)) + QStringLiteral(" per block")),
             qPrintable(pool));
    app_->engine()->setStatsInterval(500);
}

void UiTest::themeButtonGoesBackToTheSystem() {
    auto* scheme = engine_->singletonInstance<ColorScheme*>(qmlTypeId("Folio", 1, 0, "ColorScheme"));
    QVERIFY(scheme);
    scheme->setMode("system");
    const bool systemDark = scheme->systemDark();
    QQuickItem* button = find("themeButton");
    click(button);  // the other scheme, chosen by the user (and remembered)
    QCOMPARE(scheme->mode(), QString(systemDark ? "light" : "dark"));
    QCOMPARE(scheme->dark(), !systemDark);
    QTRY_COMPARE(app_->themeMode(), scheme->mode());
    click(button);  // back to the scheme the system has: following the system again
    QCOMPARE(scheme->mode(), QString("system"));
    QCOMPARE(scheme->dark(), systemDark);
    QTRY_COMPARE(app_->themeMode(), QString("system"));
}

void UiTest::openingOrMakingAChatFocusesTheMessageBox() {
    QQuickItem* input = find("composerInput");
    QQuickItem* search = find("searchField");
    auto focusElsewhere = [&] {
        search->forceActiveFocus();
        QTRY_VERIFY(search->hasActiveFocus());
        QVERIFY(!input->hasActiveFocus());
    };
    // The New chat button, from another view: Chats opens with the message box ready to type in.
    QTest::keyClick(window_, Qt::Key_3, Qt::ControlModifier);
    focusElsewhere();
    const qint64 before = app_->currentConversationId();
    click(find("newChatButton"));
    QTRY_VERIFY(app_->currentConversationId() != before);
    QCOMPARE(page(), 0);
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "typed at once");
    QCOMPARE(input->property("text").toString(), QString("typed at once"));
    input->setProperty("text", QString());

    // Ctrl+N likewise.
    focusElsewhere();
    QTest::keyClick(window_, Qt::Key_N, Qt::ControlModifier);
    QTRY_VERIFY(input->hasActiveFocus());

    // Choosing a chat in the sidebar.
    // A row of the sidebar's list for another chat than the current one (delegates are visual
    // children of the list, not QObject children).
    QQuickItem* row = nullptr;
    QList<QQuickItem*> items{find("conversationList")};
    while (!items.isEmpty() && !row) {
        QQuickItem* i = items.takeFirst();
        items += i->childItems();
        const QVariant id = i->property("conversationId");
        if (id.isValid() && i->property("current").isValid() && i->isVisible() && id.toLongLong() != app_->currentConversationId()) row = i;
    }
    QVERIFY(row);
    const qint64 other = row->property("conversationId").toLongLong();
    focusElsewhere();
    click(row);
    QTRY_COMPARE(app_->currentConversationId(), other);
    QTRY_VERIFY(input->hasActiveFocus());

    // Coming back to Chats from another view.
    QTest::keyClick(window_, Qt::Key_2, Qt::ControlModifier);
    focusElsewhere();
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    QTRY_VERIFY(input->hasActiveFocus());
}

// Export, Import and "Open model folder…" open their file dialogs. Without a native dialog (as here,
// and on many desktops) QtQuick.Dialogs shows its own, whose QML imports Qt.labs.folderlistmodel:
// when that module is missing the dialog cannot be made and reading what was chosen crashed the app.
void UiTest::everyDialogOpens() {
    // What the app checks at start (it then turns these menu items off and says what to install).
    const QString problem = fileDialogProblem(*engine_);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QTest::failOnWarning(QRegularExpression("Failed to load non-native"));
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    for (const char* name : {"exportDialog", "importDialog", "modelFolderDialog"}) {
        QObject* dialog = find<QObject>(name);
        QVERIFY(QMetaObject::invokeMethod(dialog, "open"));
        QTRY_VERIFY2(dialog->property("visible").toBool(), name);
        // What a person would have chosen is readable (the crash was here).
        const char* chosen = QByteArray(name) == "modelFolderDialog" ? "selectedFolder" : "selectedFile";
        QVERIFY2(dialog->property(chosen).isValid(), name);
        QVERIFY(QMetaObject::invokeMethod(dialog, "reject"));
        QTRY_VERIFY2(!dialog->property("visible").toBool(), name);
    }
}

// The Library's trash icon and a download's stop button delete data: each asks first, and Cancel in
// the question deletes nothing. A cancelled download leaves nothing in the Library that looks loadable.
void UiTest::deletingAModelOrADownloadAsksFirst() {
    const QString repo = "karpathy/stories260K";
    QTest::keyClick(window_, Qt::Key_4, Qt::ControlModifier);
    click(find("libraryTabButton"));
    LocalModelListModel* local = app_->localModels();
    auto listed = [&] {
        for (int i = 0; i < local->rowCount(); ++i)
            if (local->data(local->index(i), LocalModelListModel::NameRole).toString() == repo) return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(listed(), 10000);
    auto answer = [&](const QString& dialogName, const char* button) {
        QPointer<QObject> dialog;  // it goes with its row when the row goes
        QTRY_VERIFY((dialog = findPopup(window_->contentItem(), dialogName)) && dialog->property("opened").toBool());
        QQuickItem* content = dialog->property("contentItem").value<QQuickItem*>();
        QVERIFY(content);
        QQuickItem* b = findItem(content, button);
        QVERIFY(b);
        click(b);
        QTRY_VERIFY(!dialog || !dialog->property("visible").toBool());
    };
    QQuickItem* trash = nullptr;
    QTRY_VERIFY((trash = findItem(window_->contentItem(), "remove_" + repo)) && trash->isVisible());
    click(trash);
    answer("confirmRemove_" + repo, "cancelButton");
    QTest::qWait(200);
    QVERIFY(listed());
    click(trash);
    answer("confirmRemove_" + repo, "confirmButton");
    QTRY_VERIFY_WITH_TIMEOUT(!listed(), 10000);

    // A download in progress (the Hub stalls its weights again); its stop button.
    DownloadListModel* downloads = app_->downloads();
    hub_->set_faults({{repo.toStdString() + "/model.safetensors", {{"kind", "stall"}, {"at", 500000}, {"seconds", 600}, {"times", -1}}}});
    QCOMPARE(downloads->start(repo), QString());
    const int stateRole = downloads->roleNames().key("state"), progressRole = downloads->roleNames().key("progress");
    auto state = [&] { return downloads->data(downloads->index(0), stateRole).toString(); };
    QTRY_VERIFY_WITH_TIMEOUT(downloads->data(downloads->index(0), progressRole).toDouble() > 0.3, 30000);
    click(find("downloadTabButton"));
    QQuickItem* stop = nullptr;
    QTRY_VERIFY((stop = findItem(window_->contentItem(), "cancel_" + repo)) && stop->isVisible());
    click(stop);
    answer("confirmCancel_" + repo, "cancelButton");
    QTest::qWait(200);
    QCOMPARE(state(), QString("downloading"));

    // Paused, its snapshot holds the files that finished (config, tokenizer) but not the weights: the
    // Library lists it, without a Load button.
    click(findItem(window_->contentItem(), "pause_" + repo));
    QTRY_COMPARE_WITH_TIMEOUT(state(), QString("paused"), 10000);
    QSignalSpy scanned(local, &LocalModelListModel::scanned);
    auto rescan = [&] {  // a fresh listing (one already under way may predate what happened)
        scanned.clear();
        local->refresh();
        return scanned.wait(5000);
    };
    QString path;
    auto pathListed = [&] {
        for (int i = 0; i < local->rowCount(); ++i)
            if (local->data(local->index(i), LocalModelListModel::NameRole).toString() == repo)
                path = local->data(local->index(i), LocalModelListModel::PathRole).toString();
        return !path.isEmpty();
    };
    QTRY_VERIFY_WITH_TIMEOUT(rescan() && pathListed(), 20000);
    click(find("libraryTabButton"));
    QQuickItem* load = nullptr;
    QTRY_VERIFY((load = findItem(window_->contentItem(), "load_" + path)) != nullptr);
    QTRY_VERIFY(findItem(window_->contentItem(), "remove_" + repo)->isVisible());
    QVERIFY2(!load->isVisible(), "an unfinished download's snapshot offers Load");

    // Cancelled (asked first), the files that had finished go with it: the Library does not list them.
    click(find("downloadTabButton"));
    QTRY_VERIFY((stop = findItem(window_->contentItem(), "cancel_" + repo)) && stop->isVisible());
    click(stop);
    answer("confirmCancel_" + repo, "confirmButton");
    QTRY_COMPARE_WITH_TIMEOUT(state(), QString("cancelled"), 10000);
    hub_->set_faults({{repo.toStdString() + "/model.safetensors", nullptr}});
    QTRY_VERIFY_WITH_TIMEOUT(rescan() && !listed(), 20000);
}

namespace {

// WCAG 2's contrast ratio of two colours (1 to 21; body text wants 4.5).
double contrast(const QColor& a, const QColor& b) {
    auto lum = [](const QColor& c) {
        auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
    };
    const double la = lum(a), lb = lum(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace

// "Connect to a server": a typed address counts without Enter ("List models" asks that server), and
// the chosen entry of an open menu (Weights) is readable.
void UiTest::typedServerAddressAndReadableMenus() {
    QTest::keyClick(window_, Qt::Key_4, Qt::ControlModifier);
    click(find("libraryTabButton"));
    RemoteConnection* remote = app_->remote();
    remote->setEndpoint("");
    QQuickItem* field = find("remoteEndpointField");
    click(field);
    QTRY_VERIFY(field->hasActiveFocus());
    QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);
    typeText(window_, "http://127.0.0.1:9/v1");  // a closed port: the listing fails, saying why
    QQuickItem* list = find("remoteListModelsButton");
    QVERIFY(list->isEnabled());
    click(list);
    QCOMPARE(remote->endpoint(), QString("http://127.0.0.1:9/v1"));
    QTRY_VERIFY_WITH_TIMEOUT(!remote->fetching() && !remote->error().isEmpty(), 15000);
    remote->setEndpoint("");

    QQuickItem* box = find("quantizationBox");
    click(box);
    QObject* popup = box->property("popup").value<QObject*>();
    QVERIFY(popup);
    QTRY_VERIFY(popup->property("opened").toBool());
    QQuickItem* chosen = nullptr;
    std::function<void(QQuickItem*)> visit = [&](QQuickItem* item) {
        if (item->inherits("QQuickItemDelegate") && item->property("highlighted").toBool()) chosen = item;
        for (QQuickItem* child : item->childItems()) visit(child);
    };
    visit(popup->property("contentItem").value<QQuickItem*>());
    QVERIFY(chosen);
    const QColor text = chosen->property("contentItem").value<QQuickItem*>()->property("color").value<QColor>();
    QQuickItem* background = chosen->property("background").value<QQuickItem*>();
    const QColor under = background->isVisible() ? background->property("color").value<QColor>()
                                                 : popup->property("background").value<QQuickItem*>()->property("color").value<QColor>();
    const double ratio = contrast(text, under);
    QTest::keyClick(window_, Qt::Key_Escape);
    QTRY_VERIFY(!popup->property("visible").toBool());
    QVERIFY2(ratio >= 4.5, qPrintable(QString("the chosen entry: %1 on %2, contrast %3").arg(text.name(), under.name()).arg(ratio)));
}

// The window opens at the size it was given when the app last ran.
void UiTest::theWindowSizeIsRemembered() {
    const QSize before = window_->size();
    window_->resize(1010, 710);
    QTRY_COMPARE(app_->windowSize(), QSize(1010, 710));
    QQmlApplicationEngine again;
    again.addImportPath(QStringLiteral("qrc:/qt/qml"));  // as setupQml does (the style is set once, already)
    again.setInitialProperties({{"app", QVariant::fromValue(app_.get())}});
    again.load(mainQmlUrl());
    QCOMPARE(again.rootObjects().size(), 1);
    auto* next = qobject_cast<QQuickWindow*>(again.rootObjects().first());
    QVERIFY(next);
    QCOMPARE(next->size(), QSize(1010, 710));
    next->close();
    window_->resize(before);
}

QTEST_MAIN(UiTest)
// Drafts: chosen with the buttons in the chat's settings panel, three drafts of one reply stream
// from one send, and the switcher in the reply's header moves between them; the draft shown is
// the chat's reply in the history.
void UiTest::threeDraftsAndTheSwitcher() {
    QTest::keyClick(window_, Qt::Key_1, Qt::ControlModifier);
    QTest::keyClick(window_, Qt::Key_N, Qt::ControlModifier);
    const qint64 c = app_->currentConversationId();
    QVERIFY(c > 0);
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.temperature = 1.0;  // sampled, so the drafts differ
    s.seed = 1234;
    s.maxTokens = 24;
    app_->store()->updateSettings(c, "", s, "");
    app_->settings()->reload();
    click(find("settingsButton"));
    QQuickItem* three = findItem(window_->contentItem(), "drafts3");  // a Repeater's delegate
    QVERIFY(three);
    QTRY_VERIFY(three->isVisible());
    click(three);
    QTRY_COMPARE(app_->settings()->property("drafts").toInt(), 3);
    click(find("settingsButton"));  // closed again

    QQuickItem* input = find("composerInput");
    input->forceActiveFocus();
    QTRY_VERIFY(input->hasActiveFocus());
    typeText(window_, "The little bird");
    QSignalSpy generating(app_->messages(), &MessageListModel::generatingChanged);
    QTest::keyClick(window_, Qt::Key_Return);
    QTRY_VERIFY(generating.count() >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(!app_->messages()->generating(), 60000);
    QCOMPARE(app_->messages()->rowCount(), 2);
    const QModelIndex reply = app_->messages()->index(1, 0);
    QCOMPARE(reply.data(MessageListModel::DraftCountRole).toInt(), 3);
    QCOMPARE(reply.data(MessageListModel::DraftIndexRole).toInt(), 1);

    // The switcher shows "1 / 3"; its right chevron moves to draft 2, which becomes the reply.
    // Every message's delegate has one (a ListView's delegates, so searched by the visual tree);
    // only the reply's shows.
    QQuickItem* sw = nullptr;
    std::function<void(QQuickItem*)> visit = [&](QQuickItem* item) {
        if (item->objectName() == "draftSwitcher" && item->isVisible()) sw = item;
        for (QQuickItem* child : item->childItems()) visit(child);
    };
    QTRY_VERIFY((visit(window_->contentItem()), sw != nullptr));
    QQuickItem* next = nullptr;
    for (QQuickItem* child : sw->childItems())
        if (child->property("tip").toString() == "Next draft") next = child;
    QVERIFY(next);
    QStringList drafts{app_->messages()->lastText()};
    for (int i = 2; i <= 3; ++i) {
        click(next);
        QTRY_COMPARE(app_->messages()->index(1, 0).data(MessageListModel::DraftIndexRole).toInt(), i);
        drafts << app_->messages()->lastText();
        const QList<MessageRecord> path = app_->store()->activePath(c);
        QCOMPARE(path.size(), 2);
        QCOMPARE(path[1].content, drafts.back());  // the history goes on with the draft shown
    }
    QVERIFY2(drafts[0] != drafts[1] || drafts[1] != drafts[2], qPrintable(drafts.join(" | ")));
    QVERIFY(!next->isEnabled());  // no draft after the third
}

#include "tst_ui.moc"
