#pragma once
// The messages of one conversation's branch on screen; each reply has a model of its parts
// (reasoning, Markdown parts). Streaming replies update in place, their parts too (GUI thread only,
// from GenerationHub signals).
#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;
class GenerationHub;
class MessagePartsModel;

class MessageListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(qint64 conversationId READ conversationId WRITE setConversationId NOTIFY conversationIdChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
public:
    enum Role {
        MessageIdRole = Qt::UserRole + 1,
        RoleRole,          // "user" / "assistant"
        ContentRole,
        PartsRole,         // assistant: its MessagePartsModel (reasoning, then the answer's Markdown parts)
        StatusRole,        // "complete", "streaming", "interrupted", "error"
        FinishReasonRole,
        ModelRole,
        AuthorRole,        // what the reply's header says: the model, "Assistant", or "Imported"
        ImportedRole,      // read from an exported file, not produced here
        ErrorRole,         // status "error": why it failed
        CanContinueRole,   // ended early with text to go on from (GenerationHub::canContinue)
        DetailsRole,       // "42 tokens · 120 tok/s · prefill 800 tok/s · first token 80 ms"
        SiblingIndexRole,  // 1-based position among alternatives (branches) at this point
        SiblingCountRole,
        IsLastRole,
        DraftIndexRole,    // 1-based: which draft is shown (and is the reply); 1 for a plain reply
        DraftCountRole,    // 1: a plain reply
    };

    MessageListModel(ChatStore* store, GenerationHub* hub, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    qint64 conversationId() const { return conversationId_; }
    void setConversationId(qint64 id);
    bool generating() const;
    // Re-reads the branch from the store (after send, regenerate, edit, branch switch).
    Q_INVOKABLE void reload();
    // For tests: the text of the last message.
    Q_INVOKABLE QString lastText() const;

signals:
    void conversationIdChanged();
    void countChanged();
    void generatingChanged();

private:
    struct Row {
        MessageRecord message;
        int siblingIndex = 1;
        int siblingCount = 1;
        int draftIndex = 1;
        int draftCount = 1;
        MessagePartsModel* parts = nullptr;  // assistant rows; a child of this model
    };
    int rowOf(qint64 messageId) const;
    void onReplyChanged(qint64 conversationId, qint64 messageId);
    void onReplyFinished(qint64 conversationId, qint64 messageId);

    ChatStore* store_;
    GenerationHub* hub_;
    qint64 conversationId_ = 0;
    QList<Row> rows_;
};

}  // namespace folio::app
