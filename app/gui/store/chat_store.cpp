#include "app/gui/store/chat_store.h"

#include <algorithm>

#include <QDateTime>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QUuid>

#include "app/gui/store/database.h"
#include "app/gui/store/store_error.h"

namespace folio::app {
namespace {

qint64 nowMs() { return QDateTime::currentMSecsSinceEpoch(); }

QString toJsonText(const QJsonObject& o) { return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)); }
QJsonObject fromJsonText(const QString& s) { return QJsonDocument::fromJson(s.toUtf8()).object(); }

// Prepares and runs `sql` with positional values; throws StoreError naming the statement on failure.
QSqlQuery run(const QSqlDatabase& db, const QString& sql, const QVariantList& values = {}) {
    QSqlQuery q(db);
    if (!q.prepare(sql)) {
        throw StoreError(QStringLiteral("history database error preparing \"%1\": %2").arg(sql.left(60), q.lastError().text()));
    }
    for (const QVariant& v : values) {
        // A null QString binds as SQL NULL; text columns are NOT NULL with '' meaning "none".
        if (v.typeId() == QMetaType::QString && v.toString().isNull()) q.addBindValue(QString(""));
        else q.addBindValue(v);
    }
    if (!q.exec()) {
        throw StoreError(QStringLiteral("history database error in \"%1\": %2").arg(sql.left(60), q.lastError().text()));
    }
    return q;
}

const char* kMessageColumns =
    "id, conversation_id, parent_id, role, content, model, sampling_json, prompt_tokens, cached_prompt_tokens,"
    " generated_tokens, ttft_ms, prefill_tok_s, decode_tok_s, finish_reason, status, created_at, error, imported,"
    " reasoning, reasoning_ms, chosen_draft,"
    " (SELECT COUNT(*) FROM message_drafts d WHERE d.message_id = messages.id)";

MessageRecord readMessage(const QSqlQuery& q) {
    MessageRecord m;
    m.id = q.value(0).toLongLong();
    m.conversationId = q.value(1).toLongLong();
    m.parentId = q.value(2).toLongLong();
    m.role = q.value(3).toString();
    m.content = q.value(4).toString();
    m.model = q.value(5).toString();
    m.sampling = SamplingSettings::fromJson(fromJsonText(q.value(6).toString()));
    m.stats.timings.prompt_tokens = q.value(7).toInt();
    m.stats.timings.cached_prompt_tokens = q.value(8).toInt();
    m.stats.timings.generated_tokens = q.value(9).toInt();
    m.stats.timings.ttft_ms = q.value(10).toDouble();
    m.stats.timings.prefill_tok_s = q.value(11).toDouble();
    m.stats.timings.decode_tok_s = q.value(12).toDouble();
    m.stats.finishReason = q.value(13).toString();
    m.status = statusFromName(q.value(14).toString());
    m.createdAt = q.value(15).toLongLong();
    m.error = q.value(16).toString();
    m.imported = q.value(17).toBool();
    m.reasoning = q.value(18).toString();
    m.reasoningMs = q.value(19).toLongLong();
    m.chosenDraft = q.value(20).toInt();
    m.draftCount = std::max(1, q.value(21).toInt());
    return m;
}

ConversationRecord readConversation(const QSqlQuery& q) {
    ConversationRecord c;
    c.id = q.value(0).toLongLong();
    c.title = q.value(1).toString();
    c.createdAt = q.value(2).toLongLong();
    c.updatedAt = q.value(3).toLongLong();
    c.systemPrompt = q.value(4).toString();
    c.sampling = SamplingSettings::fromJson(fromJsonText(q.value(5).toString()));
    c.preset = q.value(6).toString();
    c.activeLeafId = q.value(7).toLongLong();
    c.thinking = q.value(8).toBool();
    c.drafts = std::clamp(q.value(9).toInt(), 1, kMaxDrafts);
    return c;
}

const char* kConversationColumns =
    "id, title, created_at, updated_at, system_prompt, sampling_json, preset, active_leaf_id, thinking, drafts";

QVariant nullableId(qint64 id) { return id > 0 ? QVariant(id) : QVariant(QMetaType(QMetaType::LongLong)); }

// Plain words to an FTS5 query: each word quoted (so punctuation and operators are literal), all
// required, the last one as a prefix so results appear while typing.
QString ftsQuery(const QString& text) {
    QStringList terms;
    const QStringList words = text.split(QRegularExpression("\\s+"), Qt::SkipEmptyParts);
    for (int i = 0; i < words.size(); ++i) {
        QString w = words[i];
        w.replace('"', "\"\"");
        terms << ('"' + w + '"' + (i + 1 == words.size() ? "*" : ""));
    }
    return terms.join(' ');
}

}  // namespace

ChatStore::ChatStore(const QString& path)
    : path_(path), connection_("folio-store-" + QUuid::createUuid().toString(QUuid::WithoutBraces)) {
    OpenedDatabase opened = openDatabase(path, connection_);
    db_ = opened.db;
    recoveryMessage_ = opened.recoveryMessage;
    // Only one process uses a data folder (the app holds a lock file), so a reply still marked as
    // streaming was cut off by a crash or a kill.
    QSqlQuery q = run(db_, "UPDATE messages SET status = 'interrupted' WHERE status = 'streaming'");
    interruptedAtOpen_ = q.numRowsAffected();
}

ChatStore::~ChatStore() {
    db_.close();
    db_ = QSqlDatabase();
    closeDatabase(connection_);
}

QList<ConversationRecord> ChatStore::conversations() const {
    QList<ConversationRecord> out;
    QSqlQuery q = run(db_, QStringLiteral("SELECT %1 FROM conversations ORDER BY updated_at DESC, id DESC").arg(kConversationColumns));
    while (q.next()) out << readConversation(q);
    return out;
}

ConversationRecord ChatStore::conversation(qint64 id) const {
    QSqlQuery q = run(db_, QStringLiteral("SELECT %1 FROM conversations WHERE id = ?").arg(kConversationColumns), {id});
    return q.next() ? readConversation(q) : ConversationRecord{};
}

qint64 ChatStore::createConversation(const QString& title, const QString& systemPrompt,
                                     const SamplingSettings& sampling, const QString& preset) {
    const qint64 t = nowMs();
    QSqlQuery q = run(db_,
        "INSERT INTO conversations (title, created_at, updated_at, system_prompt, sampling_json, preset)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        {title, t, t, systemPrompt, toJsonText(sampling.toJson()), preset});
    return q.lastInsertId().toLongLong();
}

void ChatStore::renameConversation(qint64 id, const QString& title) {
    // The title only: the list is ordered by activity, and a renamed chat must not move away from
    // under the pointer that renamed it.
    run(db_, "UPDATE conversations SET title = ? WHERE id = ?", {title, id});
}

void ChatStore::updateSettings(qint64 id, const QString& systemPrompt, const SamplingSettings& sampling,
                               const QString& preset) {
    run(db_, "UPDATE conversations SET system_prompt = ?, sampling_json = ?, preset = ? WHERE id = ?",
        {systemPrompt, toJsonText(sampling.toJson()), preset, id});
}

void ChatStore::setThinking(qint64 id, bool on) {
    run(db_, "UPDATE conversations SET thinking = ? WHERE id = ?", {int(on), id});
}

void ChatStore::setDrafts(qint64 id, int drafts) {
    run(db_, "UPDATE conversations SET drafts = ? WHERE id = ?", {std::clamp(drafts, 1, kMaxDrafts), id});
}

QList<DraftRecord> ChatStore::drafts(qint64 messageId) const {
    QSqlQuery q = run(db_,
        "SELECT idx, content, reasoning, reasoning_ms, generated_tokens, finish_reason FROM message_drafts"
        " WHERE message_id = ? ORDER BY idx", {messageId});
    QList<DraftRecord> out;
    while (q.next()) {
        out << DraftRecord{q.value(0).toInt(), q.value(1).toString(), q.value(2).toString(), q.value(3).toLongLong(),
                           q.value(4).toInt(), q.value(5).toString()};
    }
    return out;
}

void ChatStore::saveDraft(qint64 messageId, const DraftRecord& d) {
    run(db_,
        "INSERT OR REPLACE INTO message_drafts (message_id, idx, content, reasoning, reasoning_ms, generated_tokens,"
        " finish_reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
        {messageId, d.index, d.content, d.reasoning, d.reasoningMs, d.generatedTokens, d.finishReason});
}

void ChatStore::chooseDraft(qint64 messageId, int index) {
    // The chosen draft becomes the message's text (what the history, search and export read).
    const char* pick = "(SELECT %1 FROM message_drafts WHERE message_id = ? AND idx = ?)";
    const QString sql = QStringLiteral("UPDATE messages SET chosen_draft = ?, content = %1, reasoning = %2,"
                                       " reasoning_ms = %3, finish_reason = %4 WHERE id = ? AND EXISTS %5")
                            .arg(QString(pick).arg("content"), QString(pick).arg("reasoning"),
                                 QString(pick).arg("reasoning_ms"), QString(pick).arg("finish_reason"),
                                 QString(pick).arg("idx"));
    run(db_, sql, {index, messageId, index, messageId, index, messageId, index, messageId, index, messageId, messageId, index});
}

void ChatStore::setChosenDraft(qint64 messageId, int index) {
    run(db_, "UPDATE messages SET chosen_draft = ? WHERE id = ?", {index, messageId});
}

void ChatStore::deleteConversation(qint64 id) {
    run(db_, "DELETE FROM conversations WHERE id = ?", {id});
}

void ChatStore::setActiveLeaf(qint64 conversationId, qint64 leafId) {
    run(db_, "UPDATE conversations SET active_leaf_id = ? WHERE id = ?", {nullableId(leafId), conversationId});
}

qint64 ChatStore::addMessage(MessageRecord& m) {
    if (m.createdAt == 0) m.createdAt = nowMs();
    QSqlQuery q = run(db_,
        "INSERT INTO messages (conversation_id, parent_id, role, content, model, sampling_json, prompt_tokens,"
        " cached_prompt_tokens, generated_tokens, ttft_ms, prefill_tok_s, decode_tok_s, finish_reason, status,"
        " created_at, error, imported, reasoning, reasoning_ms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {m.conversationId, nullableId(m.parentId), m.role, m.content, m.model, toJsonText(m.sampling.toJson()),
         m.stats.timings.prompt_tokens, m.stats.timings.cached_prompt_tokens, m.stats.timings.generated_tokens,
         m.stats.timings.ttft_ms, m.stats.timings.prefill_tok_s, m.stats.timings.decode_tok_s, m.stats.finishReason,
         statusName(m.status), m.createdAt, m.error, int(m.imported), m.reasoning, m.reasoningMs});
    m.id = q.lastInsertId().toLongLong();
    run(db_, "UPDATE conversations SET active_leaf_id = ?, updated_at = ? WHERE id = ?", {m.id, m.createdAt, m.conversationId});
    return m.id;
}

MessageRecord ChatStore::message(qint64 id) const {
    QSqlQuery q = run(db_, QStringLiteral("SELECT %1 FROM messages WHERE id = ?").arg(kMessageColumns), {id});
    return q.next() ? readMessage(q) : MessageRecord{};
}

void ChatStore::updateContent(qint64 messageId, const QString& content, const QString& reasoning, qint64 reasoningMs) {
    run(db_, "UPDATE messages SET content = ?, reasoning = ?, reasoning_ms = ? WHERE id = ?",
        {content, reasoning, reasoningMs, messageId});
}

void ChatStore::finishReply(qint64 messageId, const QString& content, const ReplyStats& s, MessageStatus status,
                            const QString& error) {
    run(db_,
        "UPDATE messages SET content = ?, prompt_tokens = ?, cached_prompt_tokens = ?, generated_tokens = ?,"
        " ttft_ms = ?, prefill_tok_s = ?, decode_tok_s = ?, finish_reason = ?, status = ?, error = ? WHERE id = ?",
        {content, s.timings.prompt_tokens, s.timings.cached_prompt_tokens, s.timings.generated_tokens, s.timings.ttft_ms,
         s.timings.prefill_tok_s, s.timings.decode_tok_s, s.finishReason, statusName(status), error, messageId});
}

QList<MessageRecord> ChatStore::activePath(qint64 conversationId) const {
    QList<MessageRecord> out;
    QSqlQuery q = run(db_, QStringLiteral(
        "WITH RECURSIVE path(id, depth) AS ("
        "  SELECT active_leaf_id, 0 FROM conversations WHERE id = ? AND active_leaf_id IS NOT NULL"
        "  UNION ALL SELECT m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.id"
        "  WHERE m.parent_id IS NOT NULL)"
        " SELECT %1 FROM messages JOIN path USING (id) ORDER BY path.depth DESC").arg(kMessageColumns),
        {conversationId});
    while (q.next()) out << readMessage(q);
    return out;
}

QList<qint64> ChatStore::siblings(const MessageRecord& m) const {
    QList<qint64> out;
    QSqlQuery q = m.parentId > 0
        ? run(db_, "SELECT id FROM messages WHERE parent_id = ? ORDER BY id", {m.parentId})
        : run(db_, "SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS NULL ORDER BY id",
              {m.conversationId});
    while (q.next()) out << q.value(0).toLongLong();
    return out;
}

qint64 ChatStore::newestLeafUnder(qint64 messageId) const {
    QSqlQuery q = run(db_,
        "WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT m.id FROM messages m JOIN sub ON m.parent_id = sub.id)"
        " SELECT s.id FROM sub s WHERE NOT EXISTS (SELECT 1 FROM messages c WHERE c.parent_id = s.id)"
        " ORDER BY s.id DESC LIMIT 1",
        {messageId});
    return q.next() ? q.value(0).toLongLong() : messageId;
}

QList<MessageRecord> ChatStore::allMessages(qint64 conversationId) const {
    QList<MessageRecord> out;
    QSqlQuery q = run(db_, QStringLiteral("SELECT %1 FROM messages WHERE conversation_id = ? ORDER BY id").arg(kMessageColumns),
                      {conversationId});
    while (q.next()) out << readMessage(q);
    return out;
}

QList<SearchHit> ChatStore::search(const QString& query, int limit) const {
    QList<SearchHit> out;
    const QString fts = ftsQuery(query);
    if (fts.isEmpty()) return out;
    QSqlQuery q = run(db_,
        "SELECT m.conversation_id, m.id, c.title, m.role, snippet(messages_fts, 0, char(2), char(3), '…', 12)"
        " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN conversations c ON c.id = m.conversation_id"
        " WHERE messages_fts MATCH ? ORDER BY m.id DESC LIMIT ?",
        {fts, limit});
    while (q.next()) {
        out << SearchHit{q.value(0).toLongLong(), q.value(1).toLongLong(), q.value(2).toString(),
                         q.value(3).toString(), q.value(4).toString()};
    }
    return out;
}

}  // namespace folio::app
