#pragma once
// What the chat views can do to the history: new/rename/delete chats, send, regenerate, edit and
// resend (a new branch), switch branches, continue or stop a reply, export and import.
#include <QObject>
#include <QUrl>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class ChatStore;
class GenerationHub;

class ChatActions : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
public:
    ChatActions(ChatStore* store, GenerationHub* hub, QObject* parent = nullptr);

    // A new empty chat with the default preset; returns its id.
    Q_INVOKABLE qint64 newConversation(const QString& title = {}, const QString& preset = QStringLiteral("Balanced"),
                                       const QString& systemPrompt = {});
    Q_INVOKABLE void rename(qint64 conversationId, const QString& title);
    Q_INVOKABLE void remove(qint64 conversationId);  // stops it first if generating
    // Adds the user message at the end of the branch on screen and starts the reply. Returns the
    // reply's id (0 when nothing was sent).
    Q_INVOKABLE qint64 send(qint64 conversationId, const QString& text);
    // A new reply beside `assistantMessageId` (same user message, new branch).
    Q_INVOKABLE qint64 regenerate(qint64 assistantMessageId);
    // A new user message beside `userMessageId` with `text`, then a reply to it.
    Q_INVOKABLE qint64 editAndResend(qint64 userMessageId, const QString& text);
    Q_INVOKABLE qint64 continueReply(qint64 assistantMessageId);
    // Shows the previous (-1) or next (+1) alternative at this message's place.
    Q_INVOKABLE void switchBranch(qint64 messageId, int step);
    // Shows the previous (-1) or next (+1) draft of a reply with drafts; it becomes the reply the
    // chat goes on with. Works while the drafts stream.
    Q_INVOKABLE void switchDraft(qint64 messageId, int step);
    Q_INVOKABLE void stop(qint64 conversationId);
    Q_INVOKABLE bool exportMarkdown(qint64 conversationId, const QUrl& file);
    Q_INVOKABLE bool exportJson(qint64 conversationId, const QUrl& file);
    Q_INVOKABLE qint64 importJson(const QUrl& file);  // the new conversation's id, 0 on failure
    Q_INVOKABLE void copyToClipboard(const QString& text);

signals:
    void conversationsChanged();
    void pathChanged(qint64 conversationId);
    void error(const QString& message);
    void notice(const QString& message);

private:
    bool writeFile(const QUrl& file, const QByteArray& bytes);

    ChatStore* store_;
    GenerationHub* hub_;
};

}  // namespace folio::app
