#pragma once
// The system prompt, sampling settings and thinking switch of one conversation, edited in the
// settings panel and saved to the store as they change. Choosing a preset fills the sampling fields;
// editing a field afterwards marks the preset "Custom".
#include <QObject>
#include <QtQml/qqmlregistration.h>

#include "app/gui/store/store_types.h"

namespace folio::app {

class ChatStore;

class ConversationSettings : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(qint64 conversationId READ conversationId WRITE setConversationId NOTIFY changed)
    Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY changed)
    Q_PROPERTY(QString preset READ preset WRITE applyPreset NOTIFY changed)
    Q_PROPERTY(double temperature READ temperature WRITE setTemperature NOTIFY changed)
    Q_PROPERTY(double topP READ topP WRITE setTopP NOTIFY changed)
    Q_PROPERTY(int topK READ topK WRITE setTopK NOTIFY changed)
    Q_PROPERTY(double minP READ minP WRITE setMinP NOTIFY changed)
    Q_PROPERTY(double repetitionPenalty READ repetitionPenalty WRITE setRepetitionPenalty NOTIFY changed)
    Q_PROPERTY(int maxTokens READ maxTokens WRITE setMaxTokens NOTIFY changed)
    Q_PROPERTY(qint64 seed READ seed WRITE setSeed NOTIFY changed)
    // Passed to the chat template as enable_thinking (Qwen3 and other thinking models read it).
    Q_PROPERTY(bool thinking READ thinking WRITE setThinking NOTIFY changed)
    // Replies per turn, 1..4, all from one engine request (n samples sharing the prompt's KV).
    Q_PROPERTY(int drafts READ drafts WRITE setDrafts NOTIFY changed)
    // What the drafts setting does, in a sentence.
    Q_PROPERTY(QString draftsNote READ draftsNote NOTIFY changed)
public:
    explicit ConversationSettings(ChatStore* store, QObject* parent = nullptr);

    qint64 conversationId() const { return conversationId_; }
    void setConversationId(qint64 id);
    QString systemPrompt() const { return systemPrompt_; }
    void setSystemPrompt(const QString& s);
    QString preset() const { return preset_; }
    void applyPreset(const QString& name);
    double temperature() const { return s_.temperature; }
    double topP() const { return s_.topP; }
    int topK() const { return s_.topK; }
    double minP() const { return s_.minP; }
    double repetitionPenalty() const { return s_.repetitionPenalty; }
    int maxTokens() const { return s_.maxTokens; }
    qint64 seed() const { return s_.seed; }
    void setTemperature(double v) { edit(&SamplingSettings::temperature, v); }
    void setTopP(double v) { edit(&SamplingSettings::topP, v); }
    void setTopK(int v) { edit(&SamplingSettings::topK, v); }
    void setMinP(double v) { edit(&SamplingSettings::minP, v); }
    void setRepetitionPenalty(double v) { edit(&SamplingSettings::repetitionPenalty, v); }
    void setMaxTokens(int v) { edit(&SamplingSettings::maxTokens, v); }
    void setSeed(qint64 v) { edit(&SamplingSettings::seed, v); }
    bool thinking() const { return thinking_; }
    void setThinking(bool on);
    int drafts() const { return drafts_; }
    void setDrafts(int n);
    QString draftsNote() const;

    Q_INVOKABLE void reload();

signals:
    void changed();

private:
    template <typename T, typename V>
    void edit(T SamplingSettings::*field, V value) {
        if (s_.*field == T(value)) return;
        s_.*field = T(value);
        preset_ = QStringLiteral("Custom");
        save();
    }
    void save();

    ChatStore* store_;
    qint64 conversationId_ = 0;
    QString systemPrompt_;
    QString preset_;
    SamplingSettings s_;
    bool thinking_ = true;
    int drafts_ = 1;
};

}  // namespace folio::app
