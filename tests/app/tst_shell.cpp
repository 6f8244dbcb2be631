// App plumbing that needs no model: QML's network access refuses remote URLs (no remote image is
// ever fetched), and warnings logged on any thread (as the engine does) reach the UI's log model on
// the GUI thread and the rotating log file.
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <spdlog/spdlog.h>
#include <thread>

#include "app/gui/shell/log_model.h"
#include "app/gui/shell/logging.h"
#include "app/gui/shell/offline_network.h"

using namespace folio::app;

class ShellTest : public QObject {
    Q_OBJECT
private slots:
    void remoteRequestsAreRefused() {
        OfflineNetworkFactory factory;
        std::unique_ptr<QNetworkAccessManager> nam(factory.create(nullptr));
        for (const char* url : {"http://198.51.100.7/cat.png", "https://example.com/a.gif", "ftp://example.com/x"}) {
            QNetworkReply* reply = nam->get(QNetworkRequest(QUrl(url)));
            QSignalSpy done(reply, &QNetworkReply::finished);
            QVERIFY(done.wait(5000) || reply->isFinished());
            QCOMPARE(reply->error(), QNetworkReply::ProtocolUnknownError);
            QVERIFY(reply->readAll().isEmpty());
            reply->deleteLater();
        }
        // Local files still load (bundled resources, the user's own files).
        QTemporaryDir dir;
        QFile f(dir.filePath("local.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("ok");
        f.close();
        QNetworkReply* local = nam->get(QNetworkRequest(QUrl::fromLocalFile(f.fileName())));
        QSignalSpy done(local, &QNetworkReply::finished);
        QVERIFY(done.wait(5000) || local->isFinished());
        QCOMPARE(local->error(), QNetworkReply::NoError);
        QCOMPARE(local->readAll(), QByteArray("ok"));
        local->deleteLater();
    }

    void warningsFromAnyThreadReachTheUiAndTheFile() {
        QTemporaryDir dir;
        LogModel log;
        const QString file = setupLogging(dir.path(), &log);
        std::thread engineThread([] {
            spdlog::info("an info line stays in the log file");
            spdlog::warn("KV pool nearly full: 3 blocks free");
            spdlog::error("request 7 failed: prompt longer than the context");
        });
        engineThread.join();
        QTRY_COMPARE(log.rowCount(), 2);  // warnings and errors only, delivered on this thread
        QCOMPARE(log.latestLevel(), QString("error"));
        QCOMPARE(log.latest(), QString("request 7 failed: prompt longer than the context"));
        QCOMPARE(log.data(log.index(1), LogModel::TextRole).toString(), QString("KV pool nearly full: 3 blocks free"));
        qWarning("a Qt binding warning");  // Qt's own messages go to the file, not to the user
        QCoreApplication::processEvents();
        QCOMPARE(log.rowCount(), 2);
        spdlog::default_logger()->flush();
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("an info line stays in the log file"));
        QVERIFY(text.contains("KV pool nearly full"));
        QVERIFY(text.contains("qt: a Qt binding warning"));
        spdlog::drop_all();
        qInstallMessageHandler(nullptr);
    }
};

QTEST_GUILESS_MAIN(ShellTest)
#include "tst_shell.moc"
