#include "app/gui/store/transcript_io.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include "app/gui/store/chat_store.h"
#include "app/gui/store/reply_split.h"
#include "app/gui/store/store_error.h"

namespace folio::app {
namespace {

constexpr const char* kFormat = "folio-conversation";
constexpr int kFormatVersion = 1;

QString roleHeading(const MessageRecord& m) {
    if (m.role == QLatin1String("user")) return QStringLiteral("## You");
    QStringList about;
    if (!m.model.isEmpty()) about << m.model;
    if (m.imported) about << QStringLiteral("imported");
    QString h = QStringLiteral("## Assistant");
    if (!about.isEmpty()) h += QStringLiteral(" (%1)").arg(about.join(QStringLiteral(", ")));
    return h;
}

}  // namespace

QString exportMarkdown(const ChatStore& store, qint64 conversationId) {
    const ConversationRecord c = store.conversation(conversationId);
    if (c.id == 0) throw StoreError(QStringLiteral("conversation %1 does not exist").arg(conversationId));
    QString md = QStringLiteral("# %1\n\n").arg(c.title.isEmpty() ? QStringLiteral("Untitled chat") : c.title);
    if (!c.systemPrompt.isEmpty()) {
        QString quoted = c.systemPrompt;
        quoted.replace('\n', QStringLiteral("\n> "));
        md += QStringLiteral("> **System prompt:** %1\n\n").arg(quoted);
    }
    for (const MessageRecord& m : store.activePath(conversationId)) {
        md += roleHeading(m) + "\n\n";
        if (!m.reasoning.isEmpty()) {
            // As GitHub renders it: folded, like the app's "Thought for N s" part.
            md += QStringLiteral("<details><summary>%1</summary>\n\n%2\n\n</details>\n\n")
                      .arg(thoughtFor(m.reasoningMs), m.reasoning.trimmed());
        }
        md += m.content.trimmed() + "\n\n";
        // Markdown is for reading: the chosen draft only, and that there were others.
        if (m.draftCount > 1) md += QStringLiteral("*(draft %1 of %2)*\n\n").arg(m.chosenDraft + 1).arg(m.draftCount);
        if (m.status == MessageStatus::Interrupted) md += QStringLiteral("*(reply interrupted)*\n\n");
        if (m.status == MessageStatus::Error) {
            md += m.error.isEmpty() ? QStringLiteral("*(reply failed)*\n\n")
                                    : QStringLiteral("*(reply failed: %1)*\n\n").arg(m.error.simplified());
        }
    }
    return md;
}

QByteArray exportJson(const ChatStore& store, qint64 conversationId) {
    const ConversationRecord c = store.conversation(conversationId);
    if (c.id == 0) throw StoreError(QStringLiteral("conversation %1 does not exist").arg(conversationId));
    QJsonArray messages;
    for (const MessageRecord& m : store.allMessages(conversationId)) {
        QJsonObject o{{"id", m.id}, {"role", m.role}, {"content", m.content}, {"created_at", m.createdAt},
                      {"status", statusName(m.status)}};
        o["parent"] = m.parentId > 0 ? QJsonValue(m.parentId) : QJsonValue();
        if (m.imported) o["imported"] = true;
        if (!m.error.isEmpty()) o["error"] = m.error;
        if (m.role == QLatin1String("assistant")) {
            o["model"] = m.model;
            o["sampling"] = m.sampling.toJson();
            o["finish_reason"] = m.stats.finishReason;
            o["prompt_tokens"] = m.stats.timings.prompt_tokens;
            o["cached_prompt_tokens"] = m.stats.timings.cached_prompt_tokens;
            o["generated_tokens"] = m.stats.timings.generated_tokens;
            o["ttft_ms"] = m.stats.timings.ttft_ms;
            o["prefill_tok_s"] = m.stats.timings.prefill_tok_s;
            o["decode_tok_s"] = m.stats.timings.decode_tok_s;
            if (!m.reasoning.isEmpty()) {
                o["reasoning"] = m.reasoning;
                o["reasoning_ms"] = m.reasoningMs;
            }
            // Every draft goes with it; "content" is the chosen one's, so readers that know nothing
            // of drafts (format version 1 without them) still get the reply the chat went on with.
            if (m.draftCount > 1) {
                QJsonArray drafts;
                for (const DraftRecord& d : store.drafts(m.id)) {
                    QJsonObject j{{"content", d.content}, {"generated_tokens", d.generatedTokens},
                                  {"finish_reason", d.finishReason}};
                    if (!d.reasoning.isEmpty()) {
                        j["reasoning"] = d.reasoning;
                        j["reasoning_ms"] = d.reasoningMs;
                    }
                    drafts.append(j);
                }
                o["drafts"] = drafts;
                o["chosen_draft"] = m.chosenDraft;
            }
        }
        messages.append(o);
    }
    QJsonObject root{{"format", kFormat}, {"version", kFormatVersion}, {"title", c.title},
                     {"created_at", c.createdAt}, {"system_prompt", c.systemPrompt},
                     {"sampling", c.sampling.toJson()}, {"preset", c.preset}, {"messages", messages}};
    if (c.drafts > 1) root["drafts"] = c.drafts;
    root["active_leaf"] = c.activeLeafId > 0 ? QJsonValue(c.activeLeafId) : QJsonValue();
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

qint64 importJson(ChatStore& store, const QByteArray& json) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    if (err.error != QJsonParseError::NoError) {
        throw StoreError(QStringLiteral("not a valid JSON file: %1 at byte %2").arg(err.errorString()).arg(err.offset));
    }
    const QJsonObject root = doc.object();
    if (root.value("format").toString() != QLatin1String(kFormat)) {
        throw StoreError(QStringLiteral("not a Folio conversation export (\"format\" must be \"%1\")").arg(kFormat));
    }
    if (root.value("version").toInt() > kFormatVersion) {
        throw StoreError(QStringLiteral("this export has format version %1; this Folio reads version %2 and older")
                             .arg(root.value("version").toInt()).arg(kFormatVersion));
    }
    const QJsonArray messages = root.value("messages").toArray();
    // Validate everything first: ids unique, parents defined earlier, roles known.
    QSet<qint64> seen;
    for (int i = 0; i < messages.size(); ++i) {
        const QJsonObject m = messages[i].toObject();
        const qint64 id = m.value("id").toInteger(-1);
        const QString role = m.value("role").toString();
        if (id <= 0 || seen.contains(id)) throw StoreError(QStringLiteral("messages[%1].id is missing or repeated").arg(i));
        if (role != QLatin1String("user") && role != QLatin1String("assistant")) {
            throw StoreError(QStringLiteral("messages[%1].role is \"%2\"; expected \"user\" or \"assistant\"").arg(i).arg(role));
        }
        if (!m.value("content").isString()) throw StoreError(QStringLiteral("messages[%1].content must be a string").arg(i));
        const QJsonValue parent = m.value("parent");
        if (!parent.isNull() && !parent.isUndefined() && !seen.contains(parent.toInteger(-1))) {
            throw StoreError(QStringLiteral("messages[%1].parent refers to a message that does not come before it").arg(i));
        }
        if (m.contains("drafts")) {
            const QJsonArray drafts = m.value("drafts").toArray();
            if (!m.value("drafts").isArray() || drafts.size() > kMaxDrafts) {
                throw StoreError(QStringLiteral("messages[%1].drafts must be an array of at most %2 drafts").arg(i).arg(kMaxDrafts));
            }
            for (int d = 0; d < drafts.size(); ++d) {
                if (!drafts[d].toObject().value("content").isString()) {
                    throw StoreError(QStringLiteral("messages[%1].drafts[%2].content must be a string").arg(i).arg(d));
                }
            }
            const int chosen = m.value("chosen_draft").toInt(-1);
            if (chosen < 0 || chosen >= drafts.size()) {
                throw StoreError(QStringLiteral("messages[%1].chosen_draft must be an index into its %2 drafts").arg(i).arg(drafts.size()));
            }
        }
        seen.insert(id);
    }
    const QJsonValue leaf = root.value("active_leaf");
    if (!leaf.isNull() && !leaf.isUndefined() && !seen.contains(leaf.toInteger(-1))) {
        throw StoreError("active_leaf refers to no message in the file");
    }

    QSqlDatabase& db = store.database();
    db.transaction();
    try {
        const qint64 cid = store.createConversation(root.value("title").toString(), root.value("system_prompt").toString(),
                                                    SamplingSettings::fromJson(root.value("sampling").toObject()),
                                                    root.value("preset").toString());
        if (root.contains("drafts")) store.setDrafts(cid, root.value("drafts").toInt(1));
        QHash<qint64, qint64> newId;
        for (const QJsonValue& v : messages) {
            const QJsonObject o = v.toObject();
            MessageRecord m;
            m.conversationId = cid;
            m.parentId = o.value("parent").isNull() ? 0 : newId.value(o.value("parent").toInteger());
            m.role = o.value("role").toString();
            m.content = o.value("content").toString();
            m.model = o.value("model").toString();
            m.sampling = SamplingSettings::fromJson(o.value("sampling").toObject());
            m.stats.finishReason = o.value("finish_reason").toString();
            m.stats.timings.prompt_tokens = o.value("prompt_tokens").toInt();
            m.stats.timings.cached_prompt_tokens = o.value("cached_prompt_tokens").toInt();
            m.stats.timings.generated_tokens = o.value("generated_tokens").toInt();
            m.stats.timings.ttft_ms = o.value("ttft_ms").toDouble();
            m.stats.timings.prefill_tok_s = o.value("prefill_tok_s").toDouble();
            m.stats.timings.decode_tok_s = o.value("decode_tok_s").toDouble();
            m.reasoning = o.value("reasoning").toString();
            m.reasoningMs = o.value("reasoning_ms").toInteger(0);
            m.status = statusFromName(o.value("status").toString());
            m.createdAt = o.value("created_at").toInteger(0);
            m.error = o.value("error").toString();
            // Whatever the file says about models and speeds, this app did not produce these messages.
            m.imported = true;
            // A reply that was streaming when exported is not streaming in this database.
            if (m.status == MessageStatus::Streaming) m.status = MessageStatus::Interrupted;
            store.addMessage(m);
            const QJsonArray drafts = o.value("drafts").toArray();
            for (int d = 0; d < drafts.size(); ++d) {
                const QJsonObject j = drafts[d].toObject();
                store.saveDraft(m.id, DraftRecord{d, j.value("content").toString(), j.value("reasoning").toString(),
                                                  j.value("reasoning_ms").toInteger(0), j.value("generated_tokens").toInt(),
                                                  j.value("finish_reason").toString()});
            }
            if (!drafts.isEmpty()) store.chooseDraft(m.id, o.value("chosen_draft").toInt());
            newId.insert(o.value("id").toInteger(), m.id);
        }
        if (!leaf.isNull() && !leaf.isUndefined()) store.setActiveLeaf(cid, newId.value(leaf.toInteger()));
        db.commit();
        return cid;
    } catch (...) {
        db.rollback();
        throw;
    }
}

}  // namespace folio::app
