// A process streaming a reply is killed with SIGKILL; the database reopens intact, with the partial
// reply (missing at most the last half second) marked interrupted.
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "app/gui/store/chat_store.h"

using namespace folio::app;

class CrashTest : public QObject {
    Q_OBJECT
private slots:
    void killedMidStreamKeepsPartialReply();
};

void CrashTest::killedMidStreamKeepsPartialReply() {
    QTemporaryDir dir;
    const QString path = dir.filePath("history.db");
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(FOLIO_CRASH_WRITER, {path});
    QVERIFY(child.waitForStarted());

    qint64 replyId = 0;
    int flushes = 0;
    QList<QPair<qint64, int>> appended;  // (child ms, length)
    QByteArray buffer;
    QElapsedTimer guard;
    guard.start();
    while (flushes < 6 && guard.elapsed() < 20000 && child.state() == QProcess::Running) {
        child.waitForReadyRead(200);
        buffer += child.readAll();
        int nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
            const QList<QByteArray> f = buffer.left(nl).split(' ');
            buffer.remove(0, nl + 1);
            if (f[0] == "reply") replyId = f[1].toLongLong();
            if (f[0] == "flushed") ++flushes;
            if (f[0] == "appended") appended << qMakePair(f[2].toLongLong(), f[1].toInt());
        }
    }
    QVERIFY2(flushes >= 6, "the child never flushed its reply");
    ::kill(pid_t(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(5000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    buffer += child.readAll();
    int nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
        const QList<QByteArray> f = buffer.left(nl).split(' ');
        buffer.remove(0, nl + 1);
        if (f[0] == "appended") appended << qMakePair(f[2].toLongLong(), f[1].toInt());
    }
    QVERIFY(replyId > 0 && !appended.isEmpty());

    ChatStore store(path);
    QVERIFY(store.recoveryMessage().isEmpty());
    QSqlQuery q(store.database());
    QVERIFY(q.exec("PRAGMA integrity_check") && q.next());
    QCOMPARE(q.value(0).toString(), QString("ok"));
    const MessageRecord m = store.message(replyId);
    QCOMPARE(m.status, MessageStatus::Interrupted);
    QVERIFY(m.content.startsWith("word0 word1 "));
    // What was generated more than 500 ms before the last token the child reported must be there.
    const qint64 lastMs = appended.last().first;
    int mustHave = 0;
    for (const auto& [ms, len] : appended) {
        if (ms <= lastMs - 500) mustHave = len;
    }
    QVERIFY2(m.content.size() >= mustHave,
             qPrintable(QStringLiteral("saved %1 chars, but %2 were generated 500 ms before the kill")
                            .arg(m.content.size()).arg(mustHave)));
    QVERIFY(m.content.size() <= appended.last().second);
    // The interrupted reply shows on the conversation's branch.
    QCOMPARE(store.activePath(m.conversationId).last().id, replyId);
}

QTEST_GUILESS_MAIN(CrashTest)
#include "tst_crash.moc"
