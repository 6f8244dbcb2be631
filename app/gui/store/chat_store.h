#pragma once
// The chat history: conversations, the message tree (branches), replies saved as they stream, and
// full-text search. One instance per database file, used on the GUI thread only.
#include <QList>
#include <QSqlDatabase>
#include <QString>

#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore {
public:
    // Opens (creating, migrating or moving a damaged file aside) and marks replies that were still
    // streaming when the last process died as interrupted. Throws StoreError.
    explicit ChatStore(const QString& path);
    ~ChatStore();
    ChatStore(const ChatStore&) = delete;
    ChatStore& operator=(const ChatStore&) = delete;

    QString path() const { return path_; }
    // Non-empty when the previous file was unreadable and moved aside (show it to the user).
    QString recoveryMessage() const { return recoveryMessage_; }
    // How many replies were found interrupted at open.
    int interruptedAtOpen() const { return interruptedAtOpen_; }

    // Conversations, most recently updated first.
    QList<ConversationRecord> conversations() const;
    ConversationRecord conversation(qint64 id) const;  // id 0 when absent
    qint64 createConversation(const QString& title, const QString& systemPrompt,
                              const SamplingSettings& sampling, const QString& preset);
    void renameConversation(qint64 id, const QString& title);
    void updateSettings(qint64 id, const QString& systemPrompt, const SamplingSettings& sampling,
                        const QString& preset);
    // The chat's thinking switch (passed to the template as enable_thinking).
    void setThinking(qint64 id, bool on);
    // How many drafts each reply of the chat asks for (clamped to 1..kMaxDrafts).
    void setDrafts(qint64 id, int drafts);
    void deleteConversation(qint64 id);  // with all its messages
    void setActiveLeaf(qint64 conversationId, qint64 leafId);

    // Messages. addMessage fills id and createdAt and makes the message the active leaf.
    qint64 addMessage(MessageRecord& m);
    MessageRecord message(qint64 id) const;  // id 0 when absent
    // Saves the text of a streaming reply (cheap: one UPDATE): its answer, and a thinking model's
    // reasoning and how long it thought.
    void updateContent(qint64 messageId, const QString& content, const QString& reasoning = {}, qint64 reasoningMs = 0);
    // `error`: why it failed (status Error); cleared otherwise, e.g. when a failed reply is continued.
    void finishReply(qint64 messageId, const QString& content, const ReplyStats& stats, MessageStatus status,
                     const QString& error = {});
    // The branch on screen: root .. active leaf.
    QList<MessageRecord> activePath(qint64 conversationId) const;
    // Messages sharing `m`'s parent (including m), oldest first.
    QList<qint64> siblings(const MessageRecord& m) const;
    // The newest leaf in the subtree under `messageId` (itself when it has no children).
    qint64 newestLeafUnder(qint64 messageId) const;
    // A reply's drafts (none for a plain reply), by index. saveDraft writes one (insert or replace).
    QList<DraftRecord> drafts(qint64 messageId) const;
    void saveDraft(qint64 messageId, const DraftRecord& draft);
    // Makes draft `index` the reply: its text becomes the message's content and reasoning. No-op for
    // an index the reply has not got.
    void chooseDraft(qint64 messageId, int index);
    // Only the index (the journal writes the text itself while the reply streams).
    void setChosenDraft(qint64 messageId, int index);
    QList<MessageRecord> allMessages(qint64 conversationId) const;  // every branch, by id

    // FTS5 search over every message; `query` is plain words (quoted for FTS), newest first.
    QList<SearchHit> search(const QString& query, int limit = 50) const;

    QSqlDatabase& database() { return db_; }

private:
    QString path_;
    QString connection_;
    QSqlDatabase db_;
    QString recoveryMessage_;
    int interruptedAtOpen_ = 0;
};

}  // namespace folio::app
