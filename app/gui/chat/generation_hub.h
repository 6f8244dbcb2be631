#pragma once
// Every reply being generated, across all conversations (each may have one running at a time, all
// at once). Turns a branch of the history into an engine request, applies streamed text to the
// reply journal on the GUI thread, and makes Stop immediate: the UI state changes in the same call,
// the engine is told to cancel, and late tokens of that reply are ignored.
#include <QElapsedTimer>
#include <QHash>
#include <QObject>

#include "app/gui/bridge/bridge_types.h"
#include "app/gui/store/reply_split.h"

namespace folio::app {

class ChatStore;
class ReplyJournal;
class ReplySource;

class GenerationHub : public QObject {
    Q_OBJECT
public:
    GenerationHub(ChatStore* store, ReplyJournal* journal, ReplySource* source, QObject* parent = nullptr);

    // Starts a reply as a new child of `parentId` (a user message) with the conversation's system
    // prompt and sampling; the branch from the root to `parentId` is the chat history sent. With the
    // chat's drafts > 1 it is one request for that many replies (n: forked locally, the API's n on a
    // server), the drafts of
    // this one message, streaming at once; draft 0 is chosen until the user picks another. Returns
    // the new reply's id, or 0 (with `error` emitted) when the conversation is already generating.
    qint64 startReply(qint64 conversationId, qint64 parentId);
    // Continues a reply in place (one that was interrupted, stopped or cut at max tokens): the history
    // ending with the partial reply is sent for the engine to go on with that same turn
    // (continue_final_message), and the new text is appended to it. A reply with no text yet is
    // simply generated again in place.
    qint64 continueReply(qint64 messageId);
    // Whether `m` is a reply Continue makes sense for: it has text and ended early (interrupted, stopped
    // by the user or at max tokens), or failed part way. Not one that filled the context.
    // Not a reply with drafts (a continuation is one reply, the drafts were one request).
    static bool canContinue(const MessageRecord& m);
    // Makes draft `index` of `messageId` its text (what the history sends from now on), while it
    // streams or after; replyChanged follows. False when it has no such draft.
    bool chooseDraft(qint64 messageId, int index);
    int draftCount(qint64 messageId) const;
    int chosenDraft(qint64 messageId) const;
    void stop(qint64 conversationId);
    // At quit: every running reply is cancelled and saved as interrupted (it can be continued).
    void interruptAll();

    bool isGenerating(qint64 conversationId) const { return byConversation_.contains(conversationId); }
    qint64 generatingMessage(qint64 conversationId) const;
    int activeCount() const { return int(live_.size()); }
    // The reply as the journal holds it (ahead of the database while streaming): its answer text, the
    // whole split (a thinking model's reasoning apart), and how long it thought (0 until </think>).
    QString liveText(qint64 messageId) const;
    ReasoningSplit liveReply(qint64 messageId) const;
    qint64 liveReasoningMs(qint64 messageId) const;
    bool isLive(qint64 messageId) const;
    QString modelName() const { return modelName_; }
    void setModelName(const QString& name) { modelName_ = name; }
    // The branch on screen changed (send, regenerate, edit, switch): views of it reload.
    void notifyPathChanged(qint64 conversationId) { emit pathChanged(conversationId); }

signals:
    void replyStarted(qint64 conversationId, qint64 messageId);
    void replyChanged(qint64 conversationId, qint64 messageId);
    void replyFinished(qint64 conversationId, qint64 messageId);
    void generatingChanged(qint64 conversationId, bool generating);
    void error(const QString& message);
    void pathChanged(qint64 conversationId);

private:
    struct DraftClock {
        int tokens = 0;
        qint64 firstTextAt = -1;    // clock_ ms of the first text
        bool thoughtTimed = false;  // its reasoning closed (or there is none to time)
        bool ended = false;
    };
    struct Live {
        qint64 conversationId = 0;
        qint64 messageId = 0;
        int tokensBefore = 0;  // a continued reply's tokens from before (its stats count the whole reply)
        QList<DraftClock> drafts{};  // one for a plain reply
        ReplyStats stats{};          // the ends so far: the last one's timings
        QString error{};             // the first draft that failed: why
        int tokens() const;
    };
    void end(qint64 conversationId, MessageStatus status);
    quint64 submit(qint64 conversationId, qint64 messageId, std::vector<folio::ChatMessage> messages,
                   bool continueFinal = false, int tokensBefore = 0, int drafts = 1);
    void onDelta(quint64 ticket, const QString& text, int tokens, int draft);
    void onFinished(const GenerationEnd& end);

    ChatStore* store_;
    ReplyJournal* journal_;
    ReplySource* bridge_;
    QHash<quint64, Live> live_;                 // ticket -> reply
    QHash<qint64, quint64> byConversation_;     // conversation -> ticket
    QString modelName_;
    QElapsedTimer clock_;
};

}  // namespace folio::app
