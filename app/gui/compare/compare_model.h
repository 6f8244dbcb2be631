#pragma once
// Side-by-side prompting: 2-4 conversations (each with its own system prompt and sampling) shown
// as columns; one prompt goes to all of them and the replies stream at the same time through the one
// engine. Each column carries its sequence's KV blocks and how many of them are shared, so the view
// can show the common prompt prefix being held once.
#include <QAbstractListModel>
#include <memory>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class ChatActions;
class ChatStore;
class GenerationHub;
class MessageListModel;
class MonitorModel;

class CompareModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
    Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
    Q_PROPERTY(int sharedBlocks READ sharedBlocks NOTIFY statsChanged)
    Q_PROPERTY(double prefixHitRate READ prefixHitRate NOTIFY statsChanged)
public:
    enum Role { ConversationIdRole = Qt::UserRole + 1, TitleRole, PresetRole, SystemPromptRole, MessagesRole,
                GeneratingRole, BlocksRole, SharedBlocksRole, DecodeRole, TemperatureRole };
    static constexpr int kMaxColumns = 4;

    CompareModel(ChatStore* store, GenerationHub* hub, ChatActions* actions, MonitorModel* monitor,
                 QObject* parent = nullptr);
    ~CompareModel() override;
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Replaces the columns with `count` new conversations sharing `systemPrompt`, with the presets
    // Balanced, Precise, Creative, Deterministic in that order.
    Q_INVOKABLE void startNew(int count, const QString& systemPrompt = {});
    Q_INVOKABLE bool addConversation(qint64 conversationId);
    Q_INVOKABLE void removeAt(int index);
    Q_INVOKABLE void setPreset(int index, const QString& preset);
    Q_INVOKABLE void setSystemPrompt(int index, const QString& systemPrompt);
    // Sends `text` to every column; returns how many replies started.
    Q_INVOKABLE int send(const QString& text);
    Q_INVOKABLE void stopAll();
    Q_INVOKABLE qint64 conversationAt(int index) const;

    bool generating() const;
    int sharedBlocks() const;
    double prefixHitRate() const;

signals:
    void countChanged();
    void generatingChanged();
    void statsChanged();

private:
    struct Column {
        qint64 conversationId = 0;
        std::unique_ptr<MessageListModel> messages;
    };
    void refreshRow(int row);

    ChatStore* store_;
    GenerationHub* hub_;
    ChatActions* actions_;
    MonitorModel* monitor_;
    std::vector<Column> columns_;
};

}  // namespace folio::app
