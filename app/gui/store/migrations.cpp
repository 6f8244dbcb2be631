#include "app/gui/store/migrations.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

#include "app/gui/store/store_error.h"

namespace folio::app {
namespace {

// Step N turns a version N-1 database into version N. Never edit a released step: add a new one.
const QStringList& step(int version) {
    static const QStringList v1 = {
        "CREATE TABLE conversations ("
        "  id INTEGER PRIMARY KEY,"
        "  title TEXT NOT NULL DEFAULT '',"
        "  created_at INTEGER NOT NULL,"
        "  updated_at INTEGER NOT NULL)",
        "CREATE TABLE messages ("
        "  id INTEGER PRIMARY KEY,"
        "  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
        "  role TEXT NOT NULL,"
        "  content TEXT NOT NULL DEFAULT '',"
        "  created_at INTEGER NOT NULL)",
        "CREATE INDEX messages_by_conversation ON messages(conversation_id, id)",
    };
    // Branches: messages form a tree (edit-and-resend and regenerate add siblings); the conversation
    // remembers the leaf of the branch on screen. Per-conversation system prompt and sampling.
    static const QStringList v2 = {
        "ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE",
        "UPDATE messages SET parent_id = (SELECT MAX(p.id) FROM messages p"
        "  WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id)",
        "CREATE INDEX messages_by_parent ON messages(parent_id)",
        "ALTER TABLE conversations ADD COLUMN active_leaf_id INTEGER",
        "UPDATE conversations SET active_leaf_id = (SELECT MAX(m.id) FROM messages m"
        "  WHERE m.conversation_id = conversations.id)",
        "ALTER TABLE conversations ADD COLUMN system_prompt TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE conversations ADD COLUMN sampling_json TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE conversations ADD COLUMN preset TEXT NOT NULL DEFAULT ''",
    };
    // What produced a reply and how it ended; 'streaming' rows found at start-up were interrupted.
    static const QStringList v3 = {
        "ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN sampling_json TEXT NOT NULL DEFAULT '{}'",
        "ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN cached_prompt_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN generated_tokens INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN ttft_ms REAL NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN prefill_tok_s REAL NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN decode_tok_s REAL NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN finish_reason TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN status TEXT NOT NULL DEFAULT 'complete'",
    };
    // Full-text search over every message (external-content FTS5 kept in step by triggers).
    static const QStringList v4 = {
        "CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id',"
        "  tokenize='unicode61 remove_diacritics 2')",
        "CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN"
        "  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END",
        "CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN"
        "  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content); END",
        "CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN"
        "  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);"
        "  INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content); END",
        "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    };
    // Why a reply failed (shown with it, not only in a passing banner), and which messages came from
    // an imported file (their model and figures were not produced here).
    static const QStringList v5 = {
        "ALTER TABLE messages ADD COLUMN error TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN imported INTEGER NOT NULL DEFAULT 0",
    };
    // Thinking models: a reply's reasoning (its <think> block) apart from its answer, how long the
    // model thought, and each chat's thinking switch (on, as the templates default to).
    static const QStringList v6 = {
        "ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE messages ADD COLUMN reasoning_ms INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE conversations ADD COLUMN thinking INTEGER NOT NULL DEFAULT 1",
    };
    // Drafts (issue 17): a reply asked for as n samples of one request keeps every draft here, the
    // chosen one also as the message's content (so history, search and export read it as before);
    // each chat's number of drafts (1: a plain reply).
    static const QStringList v7 = {
        "CREATE TABLE message_drafts ("
        "  message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
        "  idx INTEGER NOT NULL,"
        "  content TEXT NOT NULL DEFAULT '',"
        "  reasoning TEXT NOT NULL DEFAULT '',"
        "  reasoning_ms INTEGER NOT NULL DEFAULT 0,"
        "  generated_tokens INTEGER NOT NULL DEFAULT 0,"
        "  finish_reason TEXT NOT NULL DEFAULT '',"
        "  PRIMARY KEY (message_id, idx))",
        "ALTER TABLE messages ADD COLUMN chosen_draft INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE conversations ADD COLUMN drafts INTEGER NOT NULL DEFAULT 1",
    };
    static const QStringList none;
    switch (version) {
    case 1: return v1;
    case 2: return v2;
    case 3: return v3;
    case 4: return v4;
    case 5: return v5;
    case 6: return v6;
    case 7: return v7;
    default: return none;
    }
}

void exec(QSqlDatabase& db, const QString& sql, int version) {
    QSqlQuery q(db);
    if (!q.exec(sql)) {
        throw StoreError(QStringLiteral("upgrading the history database %1 to schema version %2 failed: %3 (in: %4)")
                             .arg(db.databaseName()).arg(version).arg(q.lastError().text(), sql.left(80)));
    }
}

}  // namespace

int schemaVersion(QSqlDatabase& db) {
    QSqlQuery q(db);
    if (!q.exec("PRAGMA user_version") || !q.next()) {
        throw StoreError(QStringLiteral("cannot read the schema version of %1: %2")
                             .arg(db.databaseName(), q.lastError().text()));
    }
    return q.value(0).toInt();
}

void migrate(QSqlDatabase& db, int target) {
    const int current = schemaVersion(db);
    if (current > kSchemaVersion) {
        throw StoreError(QStringLiteral("the history database %1 has schema version %2, newer than this Folio "
                                        "understands (%3); use a newer Folio or start with another --data-dir")
                             .arg(db.databaseName()).arg(current).arg(kSchemaVersion));
    }
    for (int v = current + 1; v <= target; ++v) {
        if (!db.transaction()) {
            throw StoreError(QStringLiteral("cannot start a transaction on %1: %2")
                                 .arg(db.databaseName(), db.lastError().text()));
        }
        try {
            for (const QString& sql : step(v)) exec(db, sql, v);
            exec(db, QStringLiteral("PRAGMA user_version = %1").arg(v), v);
        } catch (...) {
            db.rollback();
            throw;
        }
        if (!db.commit()) {
            throw StoreError(QStringLiteral("cannot commit schema version %1 of %2: %3")
                                 .arg(v).arg(db.databaseName(), db.lastError().text()));
        }
    }
}

}  // namespace folio::app
