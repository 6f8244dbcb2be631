// The Download page's C++ models against the fake Hub (tests/hub/fake_hub.py), offscreen: downloads
// finish and land in the library, pause / resume / cancel, several at once while the GUI thread stays
// free, a gated repository with and without the app's token, unfinished downloads remembered across a
// restart, search, the catalog and "will it fit".
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <filesystem>
#include <map>
#include <memory>

#include "app/gui/models/catalog_model.h"
#include "app/gui/models/download_list_model.h"
#include "app/gui/models/hub_account.h"
#include "app/gui/models/hub_search_model.h"
#include "app/gui/models/local_model_list.h"
#include "app/gui/models/model_fitter.h"
#include "app/gui/models/model_library.h"
#include "tests/app/fixtures_qt.h"
#include "tests/hub/fake_hub_server.h"

using namespace folio::app;
using folio::test::FakeHub;
using folio::test::FakeHubSpec;
namespace fs = std::filesystem;

namespace {

const QString kRepo = QStringLiteral("karpathy/stories260K");

// The stories260K fixture as a Hub repository, weights served slowly when `slow`.
FakeHubSpec storiesSpec(const std::string& repo = "karpathy/stories260K", bool slow = false) {
    FakeHubSpec s;
    for (const auto& e : fs::directory_iterator(folio::test::qtFixturePath("models/stories260K").toStdString())) {
        const std::string name = e.path().filename().string();
        s.file(repo, name, folio::test::read_file(e.path().string()), name == "model.safetensors" || name == "tokenizer.model");
    }
    s.repo_field(repo, "tags", nlohmann::json::array({"safetensors", "text-generation", "llama"}));
    s.repo_field(repo, "downloads", 1234);
    s.repo_field(repo, "safetensors", {{"parameters", {{"F32", 260000}}}, {"total", 260000}});
    if (slow) s.fault(repo + "/model.safetensors", {{"kind", "slow"}, {"chunk", 20000}, {"delay", 0.05}, {"times", -1}});
    return s;
}

folio::hub::PullOptions quickOptions() {
    folio::hub::PullOptions o;
    o.retry.base_delay = std::chrono::milliseconds(5);
    o.retry.max_delay = std::chrono::milliseconds(20);
    return o;
}

// A row's value by role name, as QML reads it.
QVariant value(const QAbstractItemModel& m, int row, const char* role) { return m.data(m.index(row, 0), m.roleNames().key(role)); }

}  // namespace

// Everything one test needs: a fake Hub, a cache, settings, the models wired as the app wires them.
struct Setup {
    QTemporaryDir dir;
    std::unique_ptr<FakeHub> server;
    std::unique_ptr<HubAccount> account;
    std::unique_ptr<ModelLibrary> library;
    std::unique_ptr<ModelFitter> fitter;
    std::unique_ptr<DownloadListModel> downloads;
    std::unique_ptr<LocalModelListModel> local;

    explicit Setup(const FakeHubSpec& spec) {
        server = std::make_unique<FakeHub>(spec);
        makeModels();
    }
    QString settings() const { return dir.filePath("settings.ini"); }
    std::string cache() const { return dir.filePath("hub").toStdString(); }
    void makeModels() {
        std::map<std::string, std::string> env = {{"HF_ENDPOINT", server->endpoint()}, {"HF_HUB_CACHE", cache()},
                                                  {"HF_HOME", dir.filePath("hf-home").toStdString()}};
        account = std::make_unique<HubAccount>(settings(), [env](const std::string& k) -> std::optional<std::string> {
            auto it = env.find(k);
            if (it == env.end()) return std::nullopt;
            return it->second;
        });
        library = std::make_unique<ModelLibrary>(settings());
        fitter = std::make_unique<ModelFitter>();
        fitter->setBudget(folio::hub::memory_budget("test GPU", true, 24ull << 30, 24ull << 30));
        downloads = std::make_unique<DownloadListModel>(account.get(), settings());
        downloads->setPullOptions(quickOptions());
        local = std::make_unique<LocalModelListModel>(account.get(), library.get(), fitter.get());
    }
    QString state(int row = 0) const { return value(*downloads, row, "state").toString(); }
    qint64 incomplete() const {
        qint64 n = 0;
        const fs::path blobs = fs::path(cache()) / "models--karpathy--stories260K" / "blobs";
        std::error_code ec;
        if (fs::is_directory(blobs, ec))
            for (const auto& e : fs::directory_iterator(blobs))
                if (e.path().extension() == ".incomplete") n += qint64(fs::file_size(e.path()));
        return n;
    }
};

class HubModelsTest : public QObject {
    Q_OBJECT
private slots:
    void downloadLandsInTheLibrary();
    void pauseResumeAndCancel();
    void severalAtOnceWhileTheGuiThreadStaysFree();
    void gatedNeedsTheAppsToken();
    void unfinishedDownloadsComeBackPaused();
    void searchAndCatalog();
    void badRequestsAreRefused();
};

void HubModelsTest::downloadLandsInTheLibrary() {
    Setup s(storiesSpec());
    QSignalSpy finished(s.downloads.get(), &DownloadListModel::downloadFinished);
    QCOMPARE(s.downloads->start(kRepo), QString());
    QCOMPARE(s.downloads->count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("done"), 30000);
    QCOMPARE(finished.count(), 1);
    const QString path = value(*s.downloads, 0, "path").toString();
    QVERIFY(path.endsWith("/snapshots/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"));
    QVERIFY(QFile::exists(path + "/model.safetensors"));
    QCOMPARE(value(*s.downloads, 0, "progress").toDouble(), 1.0);

    QSignalSpy scanned(s.local.get(), &LocalModelListModel::scanned);
    s.local->refresh();
    QVERIFY(scanned.wait(10000));
    QCOMPARE(s.local->count(), 1);
    QCOMPARE(value(*s.local, 0, "name").toString(), kRepo);
    QCOMPARE(value(*s.local, 0, "source").toString(), QStringLiteral("hub"));
    QVERIFY(value(*s.local, 0, "facts").toString().startsWith("Llama · "));
    QCOMPARE(value(*s.local, 0, "fits").toString(), QStringLiteral("yes"));
    QVERIFY(value(*s.local, 0, "fitText").toString().contains("test GPU"));
    QCOMPARE(value(*s.local, 0, "problem").toString(), QString());

    s.local->remove(0);
    QVERIFY(scanned.wait(10000));
    QCOMPARE(s.local->count(), 0);
    QVERIFY(!QFile::exists(path + "/model.safetensors"));
}

void HubModelsTest::pauseResumeAndCancel() {
    Setup s(storiesSpec("karpathy/stories260K", true));
    s.downloads->start(kRepo);
    QTRY_VERIFY_WITH_TIMEOUT(value(*s.downloads, 0, "progress").toDouble() > 0.2, 30000);
    QVERIFY(!value(*s.downloads, 0, "speedText").toString().isEmpty());
    QVERIFY(value(*s.downloads, 0, "etaText").toString().endsWith("left"));
    s.downloads->pause(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("paused"), 10000);
    const qint64 kept = s.incomplete();
    QVERIFY2(kept > 0, "pausing dropped the partial data");

    s.server->reset_log();
    s.downloads->resume(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("done"), 30000);
    bool ranged = false;
    for (const auto& e : s.server->log())
        if (e["server"] == "cdn" && e["range"].is_string()) ranged = true;
    QVERIFY2(ranged, "the resumed download started over instead of sending Range");

    // Cancel deletes the partial data.
    s.downloads->dismiss(0);
    QCOMPARE(s.downloads->count(), 0);
    fs::remove_all(s.cache());
    s.downloads->start(kRepo);
    QTRY_VERIFY_WITH_TIMEOUT(value(*s.downloads, 0, "progress").toDouble() > 0.1, 30000);
    // The small files finish first and are linked into the snapshot: cancelling deletes them too,
    // so they never show in the Library as a model.
    const QString snapshot = QString::fromStdString(s.cache()) + "/models--karpathy--stories260K/snapshots/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(snapshot + "/config.json"), 30000);
    s.downloads->cancel(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("cancelled"), 10000);
    QCOMPARE(s.incomplete(), 0);
    QVERIFY(value(*s.downloads, 0, "message").toString().contains("deleted"));
    QVERIFY(!QFile::exists(snapshot + "/config.json"));
    QSignalSpy scanned(s.local.get(), &LocalModelListModel::scanned);
    s.local->refresh();
    QVERIFY(scanned.wait(10000));
    QCOMPARE(s.local->count(), 0);

    // Likewise a paused download cancelled.
    s.downloads->start(kRepo);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(snapshot + "/config.json") && value(*s.downloads, 0, "progress").toDouble() > 0.1, 30000);
    s.downloads->pause(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("paused"), 10000);
    s.downloads->cancel(0);
    QCOMPARE(s.state(), QStringLiteral("cancelled"));
    QCOMPARE(s.incomplete(), 0);
    QVERIFY(!QFile::exists(snapshot + "/config.json"));
    s.local->refresh();
    QVERIFY(scanned.wait(10000));
    QCOMPARE(s.local->count(), 0);
}

void HubModelsTest::severalAtOnceWhileTheGuiThreadStaysFree() {
    FakeHubSpec spec = storiesSpec("karpathy/stories260K", true);
    for (const auto& e : fs::directory_iterator(folio::test::qtFixturePath("models/tiny-awq").toStdString())) {
        const std::string name = e.path().filename().string();
        spec.file("test/tiny-awq", name, folio::test::read_file(e.path().string()), name.find(".safetensors") != std::string::npos);
    }
    Setup s(spec);
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(10);
    QElapsedTimer clock;
    clock.start();
    s.downloads->start(kRepo);
    s.downloads->start("test/tiny-awq");
    QCOMPARE(s.downloads->activeCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(s.state(0) == "done" && s.state(1) == "done", 60000);
    // A 10 ms timer kept firing all along: nothing blocked the GUI thread (at least a quarter of the
    // ticks a free thread gets, on a loaded machine).
    QVERIFY2(ticks >= clock.elapsed() / 40, qPrintable(QString("%1 ticks in %2 ms").arg(ticks).arg(clock.elapsed())));
    QVERIFY(clock.elapsed() > 400);  // the slow file really took a while
}

void HubModelsTest::gatedNeedsTheAppsToken() {
    FakeHubSpec spec = storiesSpec();
    spec.repo_field("karpathy/stories260K", "gated_token", "hf_app_token");
    Setup s(spec);
    QCOMPARE(s.account->tokenSource(), QStringLiteral("none"));
    s.downloads->start(kRepo);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("failed"), 30000);
    const QString message = value(*s.downloads, 0, "message").toString();
    QVERIFY2(message.contains("karpathy/stories260K is a gated repository") && message.contains("Hugging Face token"), qPrintable(message));

    s.account->setToken("  hf_app_token ");
    QCOMPARE(s.account->tokenSource(), QStringLiteral("app"));
    QVERIFY(s.account->hasToken());
    s.downloads->resume(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("done"), 30000);
    // Kept in the settings, readable by the owner only; never sent to the CDN.
    QCOMPARE(QFile::permissions(s.settings()) & (QFileDevice::ReadGroup | QFileDevice::ReadOther), QFileDevice::Permissions());
    for (const auto& e : s.server->log())
        if (e["server"] == "cdn") {
            QVERIFY(e["authorization"].is_null());
        }
    s.account->clearToken();
    QCOMPARE(s.account->tokenSource(), QStringLiteral("none"));
}

void HubModelsTest::unfinishedDownloadsComeBackPaused() {
    Setup s(storiesSpec("karpathy/stories260K", true));
    s.downloads->start(kRepo);
    QTRY_VERIFY_WITH_TIMEOUT(value(*s.downloads, 0, "progress").toDouble() > 0.1, 30000);
    s.downloads.reset();  // the app closes mid-download
    QVERIFY(s.incomplete() > 0);
    s.downloads = std::make_unique<DownloadListModel>(s.account.get(), s.settings());
    s.downloads->setPullOptions(quickOptions());
    QCOMPARE(s.downloads->count(), 1);
    QCOMPARE(s.state(), QStringLiteral("paused"));
    QVERIFY(value(*s.downloads, 0, "bytesText").toString().endsWith("so far"));
    s.downloads->resume(0);
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("done"), 30000);
    // Done: no longer remembered.
    s.downloads = std::make_unique<DownloadListModel>(s.account.get(), s.settings());
    QCOMPARE(s.downloads->count(), 0);
}

void HubModelsTest::searchAndCatalog() {
    Setup s(storiesSpec());
    HubSearchModel search(s.account.get(), s.fitter.get());
    QSignalSpy done(&search, &HubSearchModel::finished);
    search.search("stories", "safetensors", 0);
    QVERIFY(search.busy());
    QVERIFY(done.wait(15000));
    QCOMPARE(search.error(), QString());
    QCOMPARE(search.count(), 1);
    QCOMPARE(value(search, 0, "repo").toString(), kRepo);
    QVERIFY2(value(search, 0, "facts").toString().contains("1K downloads"), qPrintable(value(search, 0, "facts").toString()));
    QCOMPARE(value(search, 0, "fits").toString(), QStringLiteral("yes"));
    search.search("stories", "AWQ", 0);
    QVERIFY(done.wait(15000));
    QCOMPARE(search.count(), 0);

    CatalogModel catalog(QStringLiteral(FOLIO_SOURCE_DIR "/resources/catalog/recommended.json"), s.fitter.get());
    QCOMPARE(catalog.error(), QString());
    QVERIFY(catalog.rowCount() >= 4);
    QVERIFY(!catalog.title().isEmpty());
    for (int i = 0; i < catalog.rowCount(); ++i) {
        QVERIFY(!value(catalog, i, "repo").toString().isEmpty());
        QCOMPARE(value(catalog, i, "fits").toString(), QStringLiteral("yes"));  // 8K tokens on 24 GB
    }
    s.fitter->setContext(0);  // each model's full context: Llama 3.1's 128K does not fit
    bool tooLarge = false;
    for (int i = 0; i < catalog.rowCount(); ++i) tooLarge = tooLarge || value(catalog, i, "fits").toString() == "no";
    QVERIFY(tooLarge);
    CatalogModel broken(s.dir.filePath("missing.json"), s.fitter.get());
    QVERIFY(broken.error().contains("cannot be read"));
}

void HubModelsTest::badRequestsAreRefused() {
    Setup s(storiesSpec());
    QVERIFY(s.downloads->start("a/b/c").contains("one '/'"));
    QCOMPARE(s.downloads->count(), 0);
    s.downloads->start(kRepo);
    QVERIFY(s.downloads->start(kRepo).contains("already downloading"));
    QTRY_COMPARE_WITH_TIMEOUT(s.state(), QStringLiteral("done"), 30000);
}

QTEST_GUILESS_MAIN(HubModelsTest)
#include "tst_hub_models.moc"
