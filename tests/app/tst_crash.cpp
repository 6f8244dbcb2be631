// A process streaming a reply is killed with SIGKILL; the database reopens intact, with the partial
// reply (missing at most the last half second) marked interrupted. Three times: with the ReplyJournal
// fed directly, through the path the app uses (engine, EngineBridge, GenerationHub, ReplyJournal), and
// that path with replies of three drafts streaming at once (every draft kept the same way).
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "app/gui/store/chat_store.h"
#include "tests/app/fixtures_qt.h"

using namespace folio::app;

class CrashTest : public QObject {
    Q_OBJECT
private slots:
    void killedMidStreamKeepsPartialReply();
    void killedMidStreamThroughHubAndBridge() { killThroughHubAndBridge(1); }
    void killedMidStreamKeepsEveryDraft() { killThroughHubAndBridge(3); }

private:
    void killThroughHubAndBridge(int drafts);
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

// The app's path: the engine generates on its thread, the worker gathers 16 ms of tokens per signal,
// the hub appends them to the journal on this thread, the journal writes every 250 ms. Killed in the
// middle of a reply, the history keeps that reply up to what the hub had about half a second before
// the kill (one journal interval, one worker batch, and slack for a loaded machine), marked
// interrupted, and every reply that ended before is complete. With `drafts` > 1 each reply has that
// many drafts, and each draft is held to the same rules as a reply.
void CrashTest::killThroughHubAndBridge(int drafts) {
#ifndef FOLIO_CRASH_APP_WRITER
    QSKIP("the app-path writer needs the engine runtime and the chat template engine, not built on this branch");
#else
    QTemporaryDir dir;
    const QString path = dir.filePath("history.db");
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    child.start(FOLIO_CRASH_APP_WRITER, {path, folio::test::qtFixturePath("models/stories260K"), QString::number(drafts)});
    QVERIFY(child.waitForStarted());

    struct Text {
        QList<QPair<qint64, int>> appended;  // (child ms, length the hub had)
        QString text;                        // as the hub received it
    };
    struct Reply : Text {
        QMap<int, Text> drafts;  // of a reply with drafts
        bool finished = false;
    };
    QMap<qint64, Reply> replies;
    qint64 current = 0;
    int flushes = 0;
    QByteArray buffer;
    const auto readLines = [&] {
        buffer += child.readAll();
        int nl;
        while ((nl = buffer.indexOf('\n')) >= 0) {
            const QList<QByteArray> f = buffer.left(nl).split(' ');
            buffer.remove(0, nl + 1);
            if (f[0] == "reply") replies[current = f[1].toLongLong()];
            if (f[0] == "finished") replies[f[1].toLongLong()].finished = true;
            if (f[0] == "flushed") ++flushes;
            if (f[0] == "appended" && f.size() >= 4) {
                Reply& r = replies[f[1].toLongLong()];
                r.appended << qMakePair(f[3].toLongLong(), f[2].toInt());
                if (f.size() >= 5) r.text += QString::fromUtf8(QByteArray::fromBase64(f[4]));
            }
            if (f[0] == "draft" && f.size() >= 5) {
                Text& d = replies[f[1].toLongLong()].drafts[f[2].toInt()];
                d.appended << qMakePair(f[4].toLongLong(), f[3].toInt());
                if (f.size() >= 6) d.text += QString::fromUtf8(QByteArray::fromBase64(f[5]));
            }
        }
    };
    // Kill once the journal has written several times and the reply now streaming is well under way
    // but far from its end (400 tokens; a few batches in), so the kill lands inside it.
    const auto midReply = [&] {
        const auto it = replies.constFind(current);
        return it != replies.constEnd() && !it->finished && it->appended.size() >= 3 && it->appended.size() <= 6;
    };
    QElapsedTimer guard;
    guard.start();
    while (!(flushes >= 6 && midReply()) && guard.elapsed() < 60000 && child.state() == QProcess::Running) {
        child.waitForReadyRead(5);
        readLines();
    }
    QVERIFY2(flushes >= 6 && midReply(), "the child never streamed a reply through the bridge (see its stderr)");
    const qint64 killed = current;
    ::kill(pid_t(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(5000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);
    readLines();

    ChatStore store(path);
    QVERIFY(store.recoveryMessage().isEmpty());
    QSqlQuery q(store.database());
    QVERIFY(q.exec("PRAGMA integrity_check") && q.next());
    QCOMPARE(q.value(0).toString(), QString("ok"));
    // Replies that ended are complete; the others (the child streams several at once) were cut, and
    // hold a prefix of what the hub received.
    for (auto it = replies.cbegin(); it != replies.cend(); ++it) {
        if (it.key() == killed) continue;
        const MessageRecord saved = store.message(it.key());
        if (it->finished) {
            QCOMPARE(saved.status, MessageStatus::Complete);
            QCOMPARE(saved.content, it->text);
        } else {
            QCOMPARE(saved.status, MessageStatus::Interrupted);
            QVERIFY2(it->text.startsWith(saved.content), qPrintable(saved.content));
        }
    }
    const Reply& r = replies[killed];
    QVERIFY(!r.finished);
    const MessageRecord m = store.message(killed);
    QCOMPARE(m.status, MessageStatus::Interrupted);
    // What is saved is what the hub received, cut somewhere: never text it did not have, and all it
    // had half a second before its last delta.
    const auto keptUpToHalfASecond = [](const Text& hub, const QString& saved, const QString& what) {
        // (isEmpty first: a null QString does not start with an empty one.)
        QVERIFY2(saved.isEmpty() || hub.text.startsWith(saved), qPrintable(what + ": " + saved));
        if (hub.appended.isEmpty()) return;
        const qint64 lastMs = hub.appended.last().first;
        int mustHave = 0;
        for (const auto& [ms, len] : hub.appended) {
            if (ms <= lastMs - 500) mustHave = len;
        }
        QVERIFY2(saved.size() >= mustHave, qPrintable(QStringLiteral("%1: saved %2 chars, but the hub had %3 500 ms before its last delta")
                                                         .arg(what).arg(saved.size()).arg(mustHave)));
    };
    keptUpToHalfASecond(r, m.content, QStringLiteral("the reply"));
    if (QTest::currentTestFailed()) return;
    QCOMPARE(store.activePath(m.conversationId).last().id, killed);
    if (drafts > 1) {
        const QList<DraftRecord> saved = store.drafts(killed);
        QCOMPARE(saved.size(), drafts);
        QSet<QString> different;
        for (const DraftRecord& d : saved) {
            // (A draft the hub has no text of yet, or one that ended at once, must be saved empty.)
            keptUpToHalfASecond(r.drafts.value(d.index), d.content, QStringLiteral("draft %1").arg(d.index));
            if (QTest::currentTestFailed()) return;
            different << r.drafts.value(d.index).text;
        }
        QVERIFY2(different.size() > 1, "the drafts were sampled alike: the test would not tell them apart");
        // The finished replies kept every draft whole.
        for (auto it = replies.cbegin(); it != replies.cend(); ++it) {
            if (!it->finished) continue;
            for (const DraftRecord& d : store.drafts(it.key())) {
                QCOMPARE(d.content, it->drafts.value(d.index).text);
                QVERIFY(!d.finishReason.isEmpty());
            }
        }
    }
#endif
}

QTEST_GUILESS_MAIN(CrashTest)
#include "tst_crash.moc"
