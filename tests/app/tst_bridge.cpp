// The engine bridge on stories260K: two conversations generating at once, cancellation, token order
// against the engine driven directly, and the list models touched only from the GUI thread.
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

#include "app/gui/bridge/engine_bridge.h"
#include "app/gui/bridge/engine_request.h"
#include "app/gui/chat/chat_actions.h"
#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/message_list_model.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "engine/backends/backend_factory.h"
#include "engine/model/model.h"
#include "engine/frontdoor/engine.h"
#include "tests/app/fixtures_qt.h"

using namespace folio::app;

namespace {

// Greedy, fixed length: the same prompt always gives the same tokens.
SamplingSettings greedy(int maxTokens) {
    SamplingSettings s = presetNamed("Deterministic").settings;
    s.maxTokens = maxTokens;
    return s;
}

}  // namespace

class BridgeTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void loadFailureIsReported();
    void fp8OptionsReachTheEngine();
    void twoConversationsStreamAtOnce();
    void tokenOrderMatchesTheEngine();
    void stopIsImmediate();
    void continueGoesOnWithTheSameTurn();
    void failedReplyKeepsItsReason();
    void modelsStayOnTheGuiThread();
    void mutationFromAnotherThreadIsFatal();
    void threeDraftsComeFromOneEngineRequest();

private:
    qint64 newConversation(int maxTokens);

    QTemporaryDir dir_;
    QString modelPath_;
    std::unique_ptr<ChatStore> store_;
    std::unique_ptr<ReplyJournal> journal_;
    std::unique_ptr<EngineBridge> bridge_;
    std::unique_ptr<GenerationHub> hub_;
    std::unique_ptr<ChatActions> actions_;
};

void BridgeTest::initTestCase() {
    modelPath_ = folio::test::qtFixturePath("models/stories260K");
    store_ = std::make_unique<ChatStore>(dir_.filePath("history.db"));
    journal_ = std::make_unique<ReplyJournal>(store_.get());
    bridge_ = std::make_unique<EngineBridge>();
    hub_ = std::make_unique<GenerationHub>(store_.get(), journal_.get(), bridge_.get());
    actions_ = std::make_unique<ChatActions>(store_.get(), hub_.get());
    QSignalSpy progress(bridge_.get(), &EngineBridge::loadProgressChanged);
    bridge_->loadModel(modelPath_, "cpu");
    QCOMPARE(bridge_->state(), EngineBridge::State::Loading);  // loading happens off this thread
    QTRY_COMPARE_WITH_TIMEOUT(bridge_->state(), EngineBridge::State::Ready, 60000);
    QVERIFY2(bridge_->lastError().isEmpty(), qPrintable(bridge_->lastError()));
    QVERIFY(progress.count() >= 1);
    QCOMPARE(bridge_->loadProgress(), 1.0);
    QCOMPARE(bridge_->backendName(), QString("cpu"));
    QVERIFY(bridge_->contextLength() > 0);
}

void BridgeTest::cleanupTestCase() {
    hub_.reset();
    actions_.reset();
    bridge_.reset();
    journal_.reset();
    store_.reset();
}

qint64 BridgeTest::newConversation(int maxTokens) {
    const qint64 c = actions_->newConversation("t", "Deterministic");
    store_->updateSettings(c, "", greedy(maxTokens), "Deterministic");
    return c;
}

void BridgeTest::loadFailureIsReported() {
    EngineBridge other;
    other.loadModel(dir_.filePath("no-such-model"), "cpu");
    QTRY_COMPARE_WITH_TIMEOUT(other.state(), EngineBridge::State::Failed, 20000);
    QVERIFY2(other.lastError().contains("no-such-model"), qPrintable(other.lastError()));
}

// The model options of the Models view: FP8 weights at load and an FP8 KV cache, through the worker.
void BridgeTest::fp8OptionsReachTheEngine() {
    EngineBridge other;
    folio::EngineStats last;
    int snapshots = 0;
    QObject scope;
    connect(&other, &EngineBridge::statsUpdated, &scope, [&](const folio::EngineStats& s) {
        last = s;
        ++snapshots;
    });
    other.loadModel(modelPath_, "cpu", "fp8", "fp8");
    QTRY_COMPARE_WITH_TIMEOUT(other.state(), EngineBridge::State::Ready, 60000);
    QVERIFY2(other.lastError().isEmpty(), qPrintable(other.lastError()));
    QCOMPARE(other.quantization(), QString("fp8-e4m3-channel (at load)"));
    QTRY_VERIFY_WITH_TIMEOUT(snapshots > 0, 10000);
    QCOMPARE(last.kv_cache_dtype, std::string("fp8_e4m3"));
    QCOMPARE(last.kv_bytes_per_block, uint64_t(5120));  // stories260K: 2 x 5 layers x 4 heads x 16 x 8, one byte each
    EngineBridge bad;
    bad.loadModel(modelPath_, "cpu", "none", "int4");
    QTRY_COMPARE_WITH_TIMEOUT(bad.state(), EngineBridge::State::Failed, 20000);
    QVERIFY2(bad.lastError().contains("unknown KV cache dtype 'int4'"), qPrintable(bad.lastError()));
}

void BridgeTest::twoConversationsStreamAtOnce() {
    // Long replies: stories260K decodes thousands of tokens per second, so short ones could finish before
    // the second request even reaches the engine.
    const qint64 a = newConversation(400), b = newConversation(400);
    QHash<qint64, int> deltas;
    QHash<qint64, int> deltasOfOtherWhenFinished;  // conversation -> deltas the other had seen
    QObject scope;  // the connections below end with this function, even when a check fails
    connect(hub_.get(), &GenerationHub::replyChanged, &scope, [&](qint64 c, qint64) { deltas[c]++; });
    connect(hub_.get(), &GenerationHub::replyFinished, &scope, [&](qint64 c, qint64) {
        deltasOfOtherWhenFinished[c] = deltas.value(c == a ? b : a);
    });
    const qint64 ra = actions_->send(a, "Once upon a time there was a little fox");
    const qint64 rb = actions_->send(b, "Tom had a red ball");
    QVERIFY(ra > 0 && rb > 0);
    QVERIFY(hub_->isGenerating(a) && hub_->isGenerating(b));
    QCOMPARE(hub_->activeCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(a) && !hub_->isGenerating(b), 60000);
    // Both streamed while the other was still running: whichever finished first, the other one had
    // already received text by then.
    const qint64 first = deltasOfOtherWhenFinished.value(a) <= deltasOfOtherWhenFinished.value(b) ? a : b;
    QVERIFY2(deltasOfOtherWhenFinished.value(first) > 0, "the second conversation did not stream while the first ran");
    for (qint64 r : {ra, rb}) {
        const MessageRecord m = store_->message(r);
        QCOMPARE(m.status, MessageStatus::Complete);
        QVERIFY(!m.content.isEmpty());
        QVERIFY(m.stats.timings.generated_tokens > 0);
        QVERIFY(!m.stats.finishReason.isEmpty());
    }
}

void BridgeTest::tokenOrderMatchesTheEngine() {
    const qint64 c = newConversation(40);
    const QString prompt = "Lily went to the park";
    const qint64 r = actions_->send(c, prompt);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 60000);
    const QString viaBridge = store_->message(r).content;
    QCOMPARE(store_->message(r).status, MessageStatus::Complete);
    QVERIFY(!viaBridge.isEmpty());

    // The same request straight into an engine of our own, events polled in order.
    std::shared_ptr<const folio::Model> model = folio::load_model(modelPath_.toStdString());
    folio::EngineOptions options;
    options.backend.kind = folio::BackendKind::Cpu;
    folio::Engine engine(model, folio::make_backend(*model, folio::backend_options_for(options)), options);
    auto events = std::make_shared<folio::EventQueue>();  // the request's events
    folio::Request req;
    req.messages = {{"user", prompt.toStdString()}};
    const SamplingSettings s = greedy(40);
    req.sampling.temperature = float(s.temperature);
    req.sampling.top_p = float(s.topP);
    req.sampling.top_k = s.topK;
    req.sampling.min_p = float(s.minP);
    req.sampling.repetition_penalty = float(s.repetitionPenalty);
    req.sampling.seed = uint64_t(s.seed);
    req.stop.max_tokens = s.maxTokens;
    const folio::RequestId id = engine.submit(req, folio::EventQueue::sink_of(events));
    std::string direct;
    bool done = false;
    QElapsedTimer t;
    t.start();
    while (!done && t.elapsed() < 60000) {
        for (const folio::Event& e : events->wait(std::chrono::milliseconds(200))) {
            QCOMPARE(e.id, id);
            direct += e.text;  // a Finished event may carry held-back text too
            if (e.kind != folio::Event::Kind::Token) done = true;
        }
    }
    QVERIFY(done);
    QCOMPARE(viaBridge, QString::fromStdString(direct));
}

void BridgeTest::stopIsImmediate() {
    const qint64 c = newConversation(400);
    MessageListModel view(store_.get(), hub_.get());
    view.setConversationId(c);
    QSignalSpy changed(hub_.get(), &GenerationHub::replyChanged);
    const qint64 r = actions_->send(c, "Once upon a time");
    QVERIFY(view.generating());
    QTRY_VERIFY_WITH_TIMEOUT(changed.count() > 0, 30000);
    actions_->stop(c);
    // The UI state changes in the same call, not when the engine gets round to it.
    QVERIFY(!hub_->isGenerating(c));
    QVERIFY(!view.generating());
    const MessageRecord stopped = store_->message(r);
    QCOMPARE(stopped.stats.finishReason, QString("cancelled"));
    QCOMPARE(stopped.status, MessageStatus::Complete);
    const QString textAtStop = view.lastText();
    QTest::qWait(400);  // late tokens of the cancelled request are dropped
    QCOMPARE(view.lastText(), textAtStop);
    QCOMPARE(store_->message(r).content, textAtStop);
    // And a new request in the same conversation works right away.
    store_->updateSettings(c, "", greedy(8), "Deterministic");
    QVERIFY(actions_->send(c, "Again") > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
}

void BridgeTest::continueGoesOnWithTheSameTurn() {
    const qint64 c = newConversation(12);
    const qint64 r = actions_->send(c, "Tom had a red ball");
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
    const MessageRecord cut = store_->message(r);
    QCOMPARE(cut.stats.finishReason, QString("length"));
    QVERIFY(GenerationHub::canContinue(cut));
    QCOMPARE(actions_->continueReply(r), r);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
    const MessageRecord continued = store_->message(r);
    QCOMPARE(continued.status, MessageStatus::Complete);
    QVERIFY2(continued.content.startsWith(cut.content) && continued.content.size() > cut.content.size(),
             qPrintable(continued.content));
    QCOMPARE(store_->allMessages(c).size(), 2);  // the same reply, not a new turn
    QCOMPARE(continued.stats.timings.generated_tokens, cut.stats.timings.generated_tokens + 12);

    // What the engine writes for that conversation with continue_final_message, driven directly.
    std::shared_ptr<const folio::Model> model = folio::load_model(modelPath_.toStdString());
    folio::EngineOptions options;
    options.backend.kind = folio::BackendKind::Cpu;
    folio::Engine engine(model, folio::make_backend(*model, folio::backend_options_for(options)), options);
    auto events = std::make_shared<folio::EventQueue>();  // the request's events
    folio::Request req;
    req.messages = {{"user", "Tom had a red ball"}, {"assistant", cut.content.toStdString()}};
    req.continue_final_message = true;
    req.sampling.temperature = 0;
    req.sampling.repetition_penalty = float(greedy(12).repetitionPenalty);
    req.sampling.top_k = greedy(12).topK;
    req.sampling.top_p = float(greedy(12).topP);
    req.sampling.min_p = float(greedy(12).minP);
    req.stop.max_tokens = 12;
    engine.submit(req, folio::EventQueue::sink_of(events));
    std::string direct;
    bool done = false;
    QElapsedTimer t;
    t.start();
    while (!done && t.elapsed() < 30000) {
        for (const folio::Event& e : events->wait(std::chrono::milliseconds(200))) {
            direct += e.text;
            if (e.kind != folio::Event::Kind::Token) done = true;
        }
    }
    QVERIFY(done);
    QCOMPARE(continued.content, cut.content + QString::fromStdString(direct));
}

void BridgeTest::failedReplyKeepsItsReason() {
    const qint64 c = newConversation(8);
    MessageListModel view(store_.get(), hub_.get());
    view.setConversationId(c);
    // Far longer than stories260K's 512-token context: the engine refuses it with a reason.
    const qint64 r = actions_->send(c, QString("the dog ran to the park and ").repeated(120));
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
    const MessageRecord failed = store_->message(r);
    QCOMPARE(failed.status, MessageStatus::Error);
    QVERIFY2(failed.error.contains("context"), qPrintable(failed.error));
    QCOMPARE(view.data(view.index(1), MessageListModel::ErrorRole).toString(), failed.error);
}

void BridgeTest::modelsStayOnTheGuiThread() {
    QThread* gui = QThread::currentThread();
    QVERIFY(bridge_->workerThread() != gui);
    QVERIFY(bridge_->workerThread()->isRunning());
    MessageListModel view(store_.get(), hub_.get());
    QCOMPARE(view.thread(), gui);
    QCOMPARE(hub_->thread(), gui);
    // Every delta handler runs on the GUI thread (the models' mutators qFatal otherwise).
    QList<QThread*> seen;
    QObject scope;
    connect(bridge_.get(), &EngineBridge::delta, &scope, [&] { seen << QThread::currentThread(); });
    const qint64 c = newConversation(16);
    view.setConversationId(c);
    actions_->send(c, "A cat");
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 30000);
    QVERIFY(!seen.isEmpty());
    for (QThread* t : seen) QCOMPARE(t, gui);
}

void BridgeTest::mutationFromAnotherThreadIsFatal() {
    // In a child process: a model mutated from a foreign thread must stop the program.
    QProcess child;
    child.start(QCoreApplication::applicationFilePath(), {"--mutate-from-thread", dir_.filePath("child.db")});
    QVERIFY(child.waitForFinished(20000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    QVERIFY2(child.readAllStandardError().contains("MessageListModel::reload called from thread"), "no thread-affinity message");
}

// A chat with 3 drafts at temperature 1 on the real tiny model: one engine request with n = 3 (its
// replies share the prompt's KV, reply i samples with seed + i), each reply streamed into its own
// draft. The drafts are exactly the replies of one such request made straight to an engine.
void BridgeTest::threeDraftsComeFromOneEngineRequest() {
    SamplingSettings s = presetNamed("Balanced").settings;
    s.temperature = 1.0;
    s.topP = 1.0;
    s.topK = 0;
    s.minP = 0.0;
    s.seed = 1234;
    s.maxTokens = 48;
    const qint64 c = actions_->newConversation("drafts", "Balanced");
    store_->updateSettings(c, "", s, "Custom");
    store_->setDrafts(c, 3);
    const QString prompt = "Sam found a shiny stone";
    const qint64 r = actions_->send(c, prompt);
    QCOMPARE(hub_->draftCount(r), 3);
    QTRY_VERIFY_WITH_TIMEOUT(!hub_->isGenerating(c), 60000);
    const MessageRecord m = store_->message(r);
    QCOMPARE(m.status, MessageStatus::Complete);
    QCOMPARE(m.draftCount, 3);
    const QList<DraftRecord> drafts = store_->drafts(r);
    QCOMPARE(drafts.size(), 3);
    for (const DraftRecord& d : drafts) {
        QVERIFY2(!d.content.isEmpty(), qPrintable(QString("draft %1 is empty").arg(d.index)));
        QVERIFY(d.generatedTokens > 0);
        QVERIFY(!d.finishReason.isEmpty());
    }
    QCOMPARE(m.content, drafts[0].content);  // draft 1 is the reply until another is chosen
    QVERIFY2(drafts[0].content != drafts[1].content || drafts[1].content != drafts[2].content,
             "three drafts at temperature 1 with seeds 1234..1236 all came out the same");

    // The same request (n = 3) straight into an engine of our own.
    std::shared_ptr<const folio::Model> model = folio::load_model(modelPath_.toStdString());
    folio::EngineOptions options;
    options.backend.kind = folio::BackendKind::Cpu;
    folio::Engine engine(model, folio::make_backend(*model, folio::backend_options_for(options)), options);
    auto events = std::make_shared<folio::EventQueue>();  // the request's events
    GenerationRequest gr;
    gr.messages = {{"user", prompt.toStdString()}};
    gr.sampling = s;
    gr.n = 3;
    const folio::RequestId id = engine.submit(toEngineRequest(gr), folio::EventQueue::sink_of(events));
    std::map<folio::RequestId, std::string> direct;
    int done = 0;
    QElapsedTimer t;
    t.start();
    while (done < 3 && t.elapsed() < 60000) {
        for (const folio::Event& e : events->wait(std::chrono::milliseconds(200))) {
            QVERIFY(e.id >= id && e.id < id + 3);
            direct[e.id] += e.text;
            if (e.kind != folio::Event::Kind::Token) ++done;
        }
    }
    QCOMPARE(done, 3);
    for (int i = 0; i < 3; ++i) QCOMPARE(drafts[i].content, QString::fromStdString(direct[id + folio::RequestId(i)]));

    // Flipping to draft 3 makes it the reply the next turn sends.
    actions_->switchDraft(r, +2);
    QCOMPARE(store_->activePath(c).last().content, drafts[2].content);
}

// The child of mutationFromAnotherThreadIsFatal.
static int mutateFromThread(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    ChatStore store(QString::fromLocal8Bit(argv[2]));
    ReplyJournal journal(&store);
    EngineBridge bridge;
    GenerationHub hub(&store, &journal, &bridge);
    MessageListModel model(&store, &hub);
    std::thread t([&] { model.reload(); });
    t.join();
    return 0;  // not reached
}

int main(int argc, char** argv) {
    if (argc >= 3 && QByteArray(argv[1]) == "--mutate-from-thread") return mutateFromThread(argc, argv);
    QCoreApplication app(argc, argv);
    BridgeTest test;
    return QTest::qExec(&test, argc, argv);
}
#include "tst_bridge.moc"
