// The history store: migrations from every earlier schema, branches, search, export/import, damaged
// files moved aside, interrupted replies.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>

#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_journal.h"
#include "app/gui/store/database.h"
#include "app/gui/store/migrations.h"
#include "app/gui/store/store_error.h"
#include "app/gui/store/transcript_io.h"

using namespace folio::app;

namespace {

void exec(QSqlDatabase& db, const QString& sql) {
    QSqlQuery q(db);
    QVERIFY2(q.exec(sql), qPrintable(sql + ": " + q.lastError().text()));
}

// Writes the rows an older release would have written at `version` (its own columns only).
void seedAtVersion(QSqlDatabase& db, int version) {
    exec(db, "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (7, 'Old trip plans', 1000, 2000)");
    if (version == 1) {
        exec(db, "INSERT INTO messages (conversation_id, role, content, created_at) VALUES (7, 'user', 'Where should we hike in Norway?', 1000)");
        exec(db, "INSERT INTO messages (conversation_id, role, content, created_at) VALUES (7, 'assistant', 'Try the Trolltunga fjord trail.', 1001)");
        return;
    }
    exec(db, "INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at) VALUES (1, 7, NULL, 'user', 'Where should we hike in Norway?', 1000)");
    if (version == 2) {
        exec(db, "INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at) VALUES (2, 7, 1, 'assistant', 'Try the Trolltunga fjord trail.', 1001)");
    } else {
        exec(db, "INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at, model, status, generated_tokens)"
                 " VALUES (2, 7, 1, 'assistant', 'Try the Trolltunga fjord trail.', 1001, 'stories260K', 'complete', 9)");
    }
    exec(db, "UPDATE conversations SET active_leaf_id = 2, system_prompt = 'Be brief.' WHERE id = 7");
}

}  // namespace

class StoreTest : public QObject {
    Q_OBJECT
private slots:
    void freshDatabaseIsCurrent();
    void migratesFromEveryEarlierVersion_data();
    void migratesFromEveryEarlierVersion();
    void failedRepliesFromV4GetAnErrorColumn();
    void errorTextIsStoredAndExported();
    void refusesNewerSchema();
    void branchesAndActivePath();
    void fullTextSearch();
    void exportImportRoundTrip();
    void importRejectsBadFiles();
    void markdownExport();
    void renameKeepsThePlaceInTheList();
    void corruptFileIsMovedAside();
    void streamingReplyReadsAsInterrupted();
    void deleteRemovesMessagesAndSearchRows();
    void reasoningAndThinkingSwitchRoundTrip();
    void reasoningColumnsFromV5();
    void draftsFromV6();
    void draftsStreamSaveAndSurviveAKill();
    void draftsExportImport();
    void importRejectsBadDrafts();
};

void StoreTest::freshDatabaseIsCurrent() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    QCOMPARE(schemaVersion(store.database()), kSchemaVersion);
    QSqlQuery q(store.database());
    QVERIFY(q.exec("PRAGMA journal_mode") && q.next());
    QCOMPARE(q.value(0).toString(), QString("wal"));
    QVERIFY(q.exec("PRAGMA foreign_keys") && q.next());
    QCOMPARE(q.value(0).toInt(), 1);
    QVERIFY(store.recoveryMessage().isEmpty());
}

// A database file left by an older Folio: created at schema `version` with the seed rows of that
// version (seedAtVersion), plus whatever `extra` writes at that version; returns its path.
static QString databaseAtVersion(const QTemporaryDir& dir, int version, const std::function<void(QSqlDatabase&)>& extra = {}) {
    const QString path = dir.filePath(QString("v%1.db").arg(version));
    const QString connection = QString("old-v%1").arg(version);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", connection);
        db.setDatabaseName(path);
        if (!db.open()) qFatal("cannot create %s", qPrintable(path));
        migrate(db, version);
        if (schemaVersion(db) != version) qFatal("migrate stopped at version %d, not %d", schemaVersion(db), version);
        seedAtVersion(db, version);
        if (extra) extra(db);
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
    return path;
}

void StoreTest::migratesFromEveryEarlierVersion_data() {
    QTest::addColumn<int>("version");
    for (int v = 1; v < kSchemaVersion; ++v) QTest::addRow("v%d", v) << v;
}

void StoreTest::migratesFromEveryEarlierVersion() {
    QFETCH(int, version);
    QTemporaryDir dir;
    const QString path = databaseAtVersion(dir, version);

    ChatStore store(path);
    QCOMPARE(schemaVersion(store.database()), kSchemaVersion);
    const auto convs = store.conversations();
    QCOMPARE(convs.size(), 1);
    QCOMPARE(convs[0].title, QString("Old trip plans"));
    const auto path_ = store.activePath(7);
    QCOMPARE(path_.size(), 2);
    QCOMPARE(path_[0].role, QString("user"));
    QCOMPARE(path_[1].content, QString("Try the Trolltunga fjord trail."));
    QCOMPARE(path_[1].parentId, path_[0].id);
    QCOMPARE(path_[1].status, MessageStatus::Complete);
    // Old rows are searchable after the FTS index was built by the migration.
    const auto hits = store.search("trolltunga");
    QCOMPARE(hits.size(), 1);
    QCOMPARE(hits[0].messageId, path_[1].id);
    // And the upgraded database takes new messages on the same branch.
    MessageRecord m{.conversationId = 7, .parentId = path_[1].id, .role = "user", .content = "And in winter?"};
    store.addMessage(m);
    QCOMPARE(store.activePath(7).size(), 3);
}

void StoreTest::failedRepliesFromV4GetAnErrorColumn() {
    QTemporaryDir dir;
    const QString path = databaseAtVersion(dir, 4, [](QSqlDatabase& db) {
        exec(db, "INSERT INTO messages (id, conversation_id, parent_id, role, content, created_at, status, finish_reason)"
                 " VALUES (3, 7, 1, 'assistant', '', 1002, 'error', 'error')");
    });
    ChatStore store(path);
    QCOMPARE(schemaVersion(store.database()), kSchemaVersion);
    const MessageRecord failed = store.message(3);
    QCOMPARE(failed.status, MessageStatus::Error);
    QCOMPARE(failed.error, QString());  // v4 never recorded why
    QVERIFY(!failed.imported);
    QVERIFY(!store.message(2).imported);
    // The upgraded row takes a reason like a new one.
    store.finishReply(3, "", {}, MessageStatus::Error, "The model was unloaded.");
    QCOMPARE(store.message(3).error, QString("The model was unloaded."));
}

void StoreTest::errorTextIsStoredAndExported() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("Failing", "", {}, "");
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Hi"};
    store.addMessage(u);
    MessageRecord a{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "Hel", .model = "stories260K"};
    a.status = MessageStatus::Streaming;
    store.addMessage(a);
    store.finishReply(a.id, "Hel", {}, MessageStatus::Error, "the prompt (600 tokens) is longer than the context (512)");
    QCOMPARE(store.message(a.id).error, QString("the prompt (600 tokens) is longer than the context (512)"));
    QVERIFY(exportMarkdown(store, c).contains("*(reply failed: the prompt (600 tokens) is longer than the context (512))*"));
    // Continuing (reopening) a failed reply clears its reason.
    store.finishReply(a.id, "Hel", {}, MessageStatus::Streaming);
    QCOMPARE(store.message(a.id).error, QString());
    store.finishReply(a.id, "Hel", {}, MessageStatus::Error, "out of memory");

    // The reason travels through JSON; every imported message is marked as imported.
    const qint64 c2 = importJson(store, exportJson(store, c));
    const QList<MessageRecord> copy = store.allMessages(c2);
    QCOMPARE(copy.size(), 2);
    QCOMPARE(copy[1].error, QString("out of memory"));
    QCOMPARE(copy[1].status, MessageStatus::Error);
    QVERIFY(copy[0].imported && copy[1].imported);
    QVERIFY(!store.message(a.id).imported);
    QVERIFY(exportMarkdown(store, c2).contains("## Assistant (stories260K, imported)"));
    QCOMPARE(QJsonDocument::fromJson(exportJson(store, c2)).object()["messages"].toArray()[1].toObject()["imported"].toBool(), true);
}

void StoreTest::refusesNewerSchema() {
    QTemporaryDir dir;
    const QString path = dir.filePath("new.db");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "new");
        db.setDatabaseName(path);
        QVERIFY(db.open());
        exec(db, QStringLiteral("PRAGMA user_version = %1").arg(kSchemaVersion + 1));
        db.close();
    }
    QSqlDatabase::removeDatabase("new");
    try {
        ChatStore store(path);
        QFAIL("a newer schema must be refused");
    } catch (const StoreError& e) {
        QVERIFY2(e.message().contains("newer"), qPrintable(e.message()));
    }
    QVERIFY(QFile::exists(path));  // left untouched
}

void StoreTest::branchesAndActivePath() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("Branches", "", {}, "Balanced");
    MessageRecord u1{.conversationId = c, .parentId = 0, .role = "user", .content = "Name a colour"};
    store.addMessage(u1);
    MessageRecord a1{.conversationId = c, .parentId = u1.id, .role = "assistant", .content = "Blue"};
    store.addMessage(a1);
    // Regenerate: a sibling reply under the same user message.
    MessageRecord a2{.conversationId = c, .parentId = u1.id, .role = "assistant", .content = "Green"};
    store.addMessage(a2);
    QCOMPARE(store.activePath(c).last().content, QString("Green"));
    QCOMPARE(store.siblings(a2), (QList<qint64>{a1.id, a2.id}));
    // Edit the first user message: a new root branch.
    MessageRecord u2{.conversationId = c, .parentId = 0, .role = "user", .content = "Name a fruit"};
    store.addMessage(u2);
    MessageRecord a3{.conversationId = c, .parentId = u2.id, .role = "assistant", .content = "Pear"};
    store.addMessage(a3);
    QCOMPARE(store.siblings(u2), (QList<qint64>{u1.id, u2.id}));
    QCOMPARE(store.activePath(c).size(), 2);
    // Switch back to the first branch: its newest leaf is shown again.
    store.setActiveLeaf(c, store.newestLeafUnder(u1.id));
    const auto p = store.activePath(c);
    QCOMPARE(p.size(), 2);
    QCOMPARE(p[0].content, QString("Name a colour"));
    QCOMPARE(p[1].content, QString("Green"));
    QCOMPARE(store.allMessages(c).size(), 5);
}

void StoreTest::fullTextSearch() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 a = store.createConversation("Rust questions", "", {}, "");
    const qint64 b = store.createConversation("Cooking", "", {}, "");
    MessageRecord m1{.conversationId = a, .parentId = 0, .role = "user", .content = "How does the borrow checker work?"};
    store.addMessage(m1);
    MessageRecord m2{.conversationId = b, .parentId = 0, .role = "user", .content = "A recipe for Crème brûlée please"};
    store.addMessage(m2);
    MessageRecord m3{.conversationId = b, .parentId = m2.id, .role = "assistant", .content = "Heat the cream; the checker is your thermometer."};
    store.addMessage(m3);

    auto hits = store.search("borrow");
    QCOMPARE(hits.size(), 1);
    QCOMPARE(hits[0].conversationId, a);
    QCOMPARE(hits[0].conversationTitle, QString("Rust questions"));
    QVERIFY2(hits[0].snippet.contains(QStringLiteral("\x02" "borrow" "\x03")), qPrintable(hits[0].snippet));
    QCOMPARE(store.search("checker").size(), 2);
    QCOMPARE(store.search("creme brulee").size(), 1);  // diacritics folded
    QCOMPARE(store.search("therm").size(), 1);         // prefix of the last word while typing
    QCOMPARE(store.search("\"unbalanced OR").size(), 0);  // operators are literal, no syntax error
    // Updated content is re-indexed (a streaming reply grows).
    store.updateContent(m3.id, "Use a water bath.");
    QCOMPARE(store.search("checker").size(), 1);
    QCOMPARE(store.search("water bath").size(), 1);
}

void StoreTest::exportImportRoundTrip() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    SamplingSettings s;
    s.temperature = 0.3;
    s.seed = 42;
    const qint64 c = store.createConversation("Round trip", "You are terse.", s, "Precise");
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Hello **there**\n```cpp\nint x;\n```"};
    store.addMessage(u);
    MessageRecord a1{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "First reply", .model = "stories260K", .sampling = s};
    a1.stats.timings.prompt_tokens = 12;
    a1.stats.timings.cached_prompt_tokens = 4;
    a1.stats.timings.generated_tokens = 30;
    a1.stats.timings.ttft_ms = 55.5;
    a1.stats.timings.prefill_tok_s = 800;
    a1.stats.timings.decode_tok_s = 120.25;
    a1.stats.finishReason = "length";
    a1.reasoning = "They said hello twice.\nAnswer once.";
    a1.reasoningMs = 2300;
    store.addMessage(a1);
    MessageRecord a2{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "Second reply, cut", .model = "stories260K", .sampling = s};
    a2.status = MessageStatus::Interrupted;
    store.addMessage(a2);
    store.setActiveLeaf(c, a1.id);

    const QByteArray json = exportJson(store, c);
    const qint64 c2 = importJson(store, json);
    QVERIFY(c2 != c);
    const ConversationRecord r = store.conversation(c2);
    QCOMPARE(r.title, QString("Round trip"));
    QCOMPARE(r.systemPrompt, QString("You are terse."));
    QCOMPARE(r.preset, QString("Precise"));
    QCOMPARE(r.sampling, s);
    const auto orig = store.allMessages(c), copy = store.allMessages(c2);
    QCOMPARE(copy.size(), orig.size());
    for (int i = 0; i < orig.size(); ++i) {
        QCOMPARE(copy[i].role, orig[i].role);
        QCOMPARE(copy[i].content, orig[i].content);
        QCOMPARE(copy[i].status, orig[i].status);
        QCOMPARE(copy[i].model, orig[i].model);
        QCOMPARE(copy[i].createdAt, orig[i].createdAt);
        QCOMPARE(copy[i].stats.timings.generated_tokens, orig[i].stats.timings.generated_tokens);
        QCOMPARE(copy[i].stats.timings.decode_tok_s, orig[i].stats.timings.decode_tok_s);
        QCOMPARE(copy[i].stats.timings.ttft_ms, orig[i].stats.timings.ttft_ms);
        QCOMPARE(copy[i].stats.finishReason, orig[i].stats.finishReason);
        QCOMPARE(copy[i].reasoning, orig[i].reasoning);
        QCOMPARE(copy[i].reasoningMs, orig[i].reasoningMs);
    }
    QCOMPARE(store.activePath(c2).last().content, QString("First reply"));
    QCOMPARE(store.siblings(store.activePath(c2).last()).size(), 2);
    // Exporting the copy gives the same document apart from ids.
    QJsonObject e1 = QJsonDocument::fromJson(json).object(), e2 = QJsonDocument::fromJson(exportJson(store, c2)).object();
    QCOMPARE(e1["messages"].toArray().size(), e2["messages"].toArray().size());
    QCOMPARE(e1["system_prompt"], e2["system_prompt"]);
}

void StoreTest::importRejectsBadFiles() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const auto rejects = [&](const QByteArray& json, const QString& expected) {
        try {
            importJson(store, json);
            QFAIL("accepted a bad file");
        } catch (const StoreError& e) {
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        }
    };
    rejects("{not json", "not a valid JSON");
    rejects(R"({"format":"something-else"})", "not a Folio conversation");
    rejects(R"({"format":"folio-conversation","version":99})", "format version 99");
    rejects(R"({"format":"folio-conversation","version":1,"messages":[{"id":1,"role":"user","content":"a","parent":5}]})",
            "messages[0].parent");
    rejects(R"({"format":"folio-conversation","version":1,"messages":[{"id":1,"role":"wizard","content":"a"}]})",
            "messages[0].role");
    QCOMPARE(store.conversations().size(), 0);  // nothing half-imported
}

void StoreTest::markdownExport() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("Notes", "Answer in English.", {}, "");
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Hi"};
    store.addMessage(u);
    MessageRecord a{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "Hello!", .model = "tiny"};
    a.status = MessageStatus::Interrupted;
    store.addMessage(a);
    const QString md = exportMarkdown(store, c);
    QVERIFY(md.startsWith("# Notes\n"));
    QVERIFY(md.contains("> **System prompt:** Answer in English."));
    QVERIFY(md.contains("## You\n\nHi\n"));
    QVERIFY(md.contains("## Assistant (tiny)\n\nHello!\n"));
    QVERIFY(md.contains("*(reply interrupted)*"));
    MessageRecord t{.conversationId = c, .parentId = a.id, .role = "assistant", .content = "Bye.", .reasoning = "Be short.", .reasoningMs = 4000};
    store.addMessage(t);
    QVERIFY(exportMarkdown(store, c).contains("<details><summary>Thought for 4 s</summary>\n\nBe short.\n\n</details>\n\nBye.\n"));
}

// Renaming is not news: the chat stays where it is in the sidebar (it used to jump to the top, from
// under the pointer), while a new message does move it up.
void StoreTest::renameKeepsThePlaceInTheList() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 older = store.createConversation("Older", "", {}, "");
    QTest::qWait(5);
    const qint64 newer = store.createConversation("Newer", "", {}, "");
    QTest::qWait(5);
    store.renameConversation(older, "Older, renamed");
    QList<ConversationRecord> list = store.conversations();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list[0].id, newer);
    QCOMPARE(list[1].id, older);
    QCOMPARE(list[1].title, QString("Older, renamed"));
    MessageRecord m{.conversationId = older, .parentId = 0, .role = "user", .content = "Hi"};
    store.addMessage(m);
    QCOMPARE(store.conversations().first().id, older);
}

void StoreTest::corruptFileIsMovedAside() {
    QTemporaryDir dir;
    const QString path = dir.filePath("h.db");
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("this is not an SQLite database at all, just some bytes ").repeated(200));
    }
    ChatStore store(path);
    QVERIFY(!store.recoveryMessage().isEmpty());
    QVERIFY2(store.recoveryMessage().contains(".corrupt-"), qPrintable(store.recoveryMessage()));
    const QStringList aside = QDir(dir.path()).entryList({"h.db.corrupt-*"});
    QCOMPARE(aside.size(), 1);
    QFile old(dir.filePath(aside[0]));
    QVERIFY(old.open(QIODevice::ReadOnly));
    QVERIFY(old.readAll().startsWith("this is not an SQLite"));  // kept byte for byte
    QCOMPARE(store.conversations().size(), 0);
    store.createConversation("works", "", {}, "");
    QCOMPARE(store.conversations().size(), 1);
}

void StoreTest::streamingReplyReadsAsInterrupted() {
    QTemporaryDir dir;
    const QString path = dir.filePath("h.db");
    qint64 id = 0;
    {
        ChatStore store(path);
        const qint64 c = store.createConversation("x", "", {}, "");
        MessageRecord a{.conversationId = c, .parentId = 0, .role = "assistant", .content = "partial"};
        a.status = MessageStatus::Streaming;
        id = store.addMessage(a);
    }
    ChatStore reopened(path);
    QCOMPARE(reopened.interruptedAtOpen(), 1);
    QCOMPARE(reopened.message(id).status, MessageStatus::Interrupted);
    QCOMPARE(reopened.message(id).content, QString("partial"));
}

void StoreTest::deleteRemovesMessagesAndSearchRows() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("gone", "", {}, "");
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "zebra crossing"};
    store.addMessage(u);
    MessageRecord a{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "zebra stripes"};
    store.addMessage(a);
    QCOMPARE(store.search("zebra").size(), 2);
    store.deleteConversation(c);
    QCOMPARE(store.allMessages(c).size(), 0);
    QCOMPARE(store.search("zebra").size(), 0);
}

// A thinking model's reply: its reasoning and thinking time apart from the answer, written while it
// streams (split from the raw "<think>…</think>" text) and at the end; each chat's thinking switch.
void StoreTest::reasoningAndThinkingSwitchRoundTrip() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("thinking", "", {}, "");
    QVERIFY(store.conversation(c).thinking);  // on, as the templates default to
    store.setThinking(c, false);
    QVERIFY(!store.conversation(c).thinking);
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "2 + 2?"};
    store.addMessage(u);

    ReplyJournal journal(&store, 60000);  // flushed by hand below
    MessageRecord reply;
    reply.conversationId = c;
    reply.parentId = u.id;
    const qint64 id = journal.begin(reply);
    journal.append(id, "<think>\nTwo and two");
    journal.flush();
    QCOMPARE(store.message(id).reasoning, QString("Two and two"));  // unterminated: all reasoning so far
    QCOMPARE(store.message(id).content, QString());
    journal.append(id, " make four.\n</think>\n\n4.");
    journal.setReasoningMs(id, 1500);
    journal.flush();
    MessageRecord m = store.message(id);
    QCOMPARE(m.reasoning, QString("Two and two make four."));
    QCOMPARE(m.content, QString("4."));
    QCOMPARE(m.reasoningMs, qint64(1500));
    journal.finish(id, {}, MessageStatus::Complete);
    m = store.message(id);
    QCOMPARE(m.content, QString("4."));
    QCOMPARE(m.reasoning, QString("Two and two make four."));
    QCOMPARE(m.reasoningMs, qint64(1500));
    QCOMPARE(m.status, MessageStatus::Complete);
    // Search covers answers, not reasoning.
    QCOMPARE(store.search("four").size(), 0);

    // Continued: the reasoning stays closed, new text extends the answer.
    journal.reopen(id);
    journal.append(id, " Four.");
    journal.finish(id, {}, MessageStatus::Complete);
    QCOMPARE(store.message(id).content, QString("4. Four."));
    QCOMPARE(store.message(id).reasoning, QString("Two and two make four."));
    QCOMPARE(store.message(id).reasoningMs, qint64(1500));

    // A reply cut while thinking keeps what it thought, with no answer.
    const qint64 cut = journal.begin(reply);
    journal.append(cut, "<think>\nHmm");
    journal.finish(cut, {}, MessageStatus::Interrupted);
    QCOMPARE(store.message(cut).reasoning, QString("Hmm"));
    QCOMPARE(store.message(cut).content, QString());
}

// A version-5 database (no reasoning columns, no switch) opens with empty reasoning and thinking on.
void StoreTest::reasoningColumnsFromV5() {
    QTemporaryDir dir;
    const QString path = databaseAtVersion(dir, 5);
    ChatStore store(path);
    QCOMPARE(schemaVersion(store.database()), kSchemaVersion);
    const MessageRecord m = store.message(2);
    QCOMPARE(m.content, QString("Try the Trolltunga fjord trail."));
    QCOMPARE(m.reasoning, QString());
    QCOMPARE(m.reasoningMs, qint64(0));
    QVERIFY(store.conversation(7).thinking);
    store.updateContent(2, "Try Trolltunga.", "A classic hike.", 800);
    QCOMPARE(store.message(2).reasoning, QString("A classic hike."));
}

// A version-6 database (before drafts) opens with every reply a plain one and every chat at 1 draft.
void StoreTest::draftsFromV6() {
    QTemporaryDir dir;
    const QString path = databaseAtVersion(dir, 6);
    ChatStore store(path);
    QCOMPARE(schemaVersion(store.database()), kSchemaVersion);
    QCOMPARE(store.conversation(7).drafts, 1);
    const MessageRecord m = store.message(2);
    QCOMPARE(m.content, QString("Try the Trolltunga fjord trail."));
    QCOMPARE(m.draftCount, 1);
    QCOMPARE(m.chosenDraft, 0);
    QVERIFY(store.drafts(2).isEmpty());
    store.setDrafts(7, 3);
    QCOMPARE(store.conversation(7).drafts, 3);
    store.setDrafts(7, 99);  // clamped
    QCOMPARE(store.conversation(7).drafts, kMaxDrafts);
    // Choosing a draft a plain reply has not got changes nothing.
    store.chooseDraft(2, 1);
    QCOMPARE(store.message(2).content, QString("Try the Trolltunga fjord trail."));
    QCOMPARE(store.message(2).chosenDraft, 0);
}

// Three drafts stream into their own rows; the chosen one is the message's text; a process killed
// mid-reply (the row still 'streaming') reopens with the partial drafts and the choice kept.
void StoreTest::draftsStreamSaveAndSurviveAKill() {
    QTemporaryDir dir;
    const QString path = dir.filePath("h.db");
    qint64 id = 0;
    {
        ChatStore store(path);
        const qint64 c = store.createConversation("drafts", "", {}, "");
        MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Name a fjord."};
        store.addMessage(u);
        ReplyJournal journal(&store, 1000000);  // writes only when told (flush) or at finish
        id = journal.begin(MessageRecord{.conversationId = c, .parentId = u.id}, 3);
        QCOMPARE(store.message(id).draftCount, 3);  // the rows exist before any text
        journal.append(id, 0, "Geiranger");
        journal.append(id, 1, "<think>\nshort</think>Nærøy");
        journal.append(id, 2, "Lyse");
        QCOMPARE(journal.text(id), QString("Geiranger"));  // draft 0 is chosen at first
        journal.choose(id, 1);
        QCOMPARE(journal.text(id), QString("Nærøy"));
        journal.finishDraft(id, 2, 1, "stop");
        journal.flush();
        const QList<DraftRecord> d = store.drafts(id);
        QCOMPARE(d.size(), 3);
        QCOMPARE(d[0].content, QString("Geiranger"));
        QCOMPARE(d[1].content, QString("Nærøy"));
        QCOMPARE(d[1].reasoning, QString("short"));
        QCOMPARE(d[2].finishReason, QString("stop"));
        QCOMPARE(d[0].finishReason, QString());
        QCOMPARE(store.message(id).content, QString("Nærøy"));
        QCOMPARE(store.message(id).chosenDraft, 1);
        journal.append(id, 0, " fjord");
        // The process dies here: the journal is dropped without finish() (its destructor's flush
        // stands for the timer's last one), so the row still says 'streaming'.
    }
    ChatStore reopened(path);
    QCOMPARE(reopened.interruptedAtOpen(), 1);
    const MessageRecord m = reopened.message(id);
    QCOMPARE(m.status, MessageStatus::Interrupted);
    QCOMPARE(m.draftCount, 3);
    QCOMPARE(m.chosenDraft, 1);
    QCOMPARE(m.content, QString("Nærøy"));
    QCOMPARE(reopened.drafts(id)[0].content, QString("Geiranger fjord"));
    // After the restart the user flips to draft 3: it becomes the reply.
    reopened.chooseDraft(id, 2);
    QCOMPARE(reopened.message(id).content, QString("Lyse"));
    QCOMPARE(reopened.message(id).chosenDraft, 2);
    QCOMPARE(reopened.message(id).stats.finishReason, QString("stop"));
    QCOMPARE(reopened.activePath(m.conversationId).last().content, QString("Lyse"));
    // Deleting the chat takes the drafts with it.
    reopened.deleteConversation(m.conversationId);
    QVERIFY(reopened.drafts(id).isEmpty());
}

// JSON carries every draft and the choice (and the chat's setting); Markdown the chosen one, marked.
void StoreTest::draftsExportImport() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const qint64 c = store.createConversation("drafts", "", {}, "");
    store.setDrafts(c, 2);
    MessageRecord u{.conversationId = c, .parentId = 0, .role = "user", .content = "Pick a colour."};
    store.addMessage(u);
    MessageRecord a{.conversationId = c, .parentId = u.id, .role = "assistant", .content = "Blue", .model = "stories260K"};
    store.addMessage(a);
    store.saveDraft(a.id, DraftRecord{0, "Red", {}, 0, 2, "stop"});
    store.saveDraft(a.id, DraftRecord{1, "Blue", "cool tones", 300, 3, "length"});
    store.chooseDraft(a.id, 1);

    const QByteArray json = exportJson(store, c);
    const QJsonObject exported = QJsonDocument::fromJson(json).object()["messages"].toArray()[1].toObject();
    QCOMPARE(exported["content"].toString(), QString("Blue"));  // readers without drafts get the chosen one
    QCOMPARE(exported["chosen_draft"].toInt(), 1);
    QCOMPARE(exported["drafts"].toArray().size(), 2);

    const qint64 c2 = importJson(store, json);
    QCOMPARE(store.conversation(c2).drafts, 2);
    const MessageRecord copy = store.activePath(c2).last();
    QCOMPARE(copy.content, QString("Blue"));
    QCOMPARE(copy.reasoning, QString("cool tones"));
    QCOMPARE(copy.draftCount, 2);
    QCOMPARE(copy.chosenDraft, 1);
    const QList<DraftRecord> d = store.drafts(copy.id);
    QCOMPARE(d[0].content, QString("Red"));
    QCOMPARE(d[0].generatedTokens, 2);
    QCOMPARE(d[1].finishReason, QString("length"));
    QCOMPARE(d[1].reasoningMs, qint64(300));

    const QString md = exportMarkdown(store, c);
    QVERIFY(md.contains("Blue"));
    QVERIFY(!md.contains("Red"));
    QVERIFY(md.contains("*(draft 2 of 2)*"));
}

void StoreTest::importRejectsBadDrafts() {
    QTemporaryDir dir;
    ChatStore store(dir.filePath("h.db"));
    const auto rejects = [&](const QByteArray& json, const QString& expected) {
        try {
            importJson(store, json);
            QFAIL("accepted a bad file");
        } catch (const StoreError& e) {
            QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        }
    };
    rejects(R"({"format":"folio-conversation","version":1,"messages":[{"id":1,"role":"assistant","content":"a",)"
            R"("drafts":[{"content":"a"},{"content":"b"}],"chosen_draft":2}]})", "messages[0].chosen_draft");
    rejects(R"({"format":"folio-conversation","version":1,"messages":[{"id":1,"role":"assistant","content":"a",)"
            R"("drafts":[{"content":"a"},{"content":7}],"chosen_draft":0}]})", "messages[0].drafts[1].content");
    rejects(R"({"format":"folio-conversation","version":1,"messages":[{"id":1,"role":"assistant","content":"a",)"
            R"("drafts":"many","chosen_draft":0}]})", "messages[0].drafts must be an array");
    QCOMPARE(store.conversations().size(), 0);
}

QTEST_GUILESS_MAIN(StoreTest)
#include "tst_store.moc"

