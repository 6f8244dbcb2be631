#include "app/gui/chat/conversation_settings.h"

#include "app/gui/chat/sampling_presets.h"
#include "app/gui/store/chat_store.h"

namespace folio::app {

ConversationSettings::ConversationSettings(ChatStore* store, QObject* parent) : QObject(parent), store_(store) {}

void ConversationSettings::setConversationId(qint64 id) {
    conversationId_ = id;
    reload();
}

void ConversationSettings::reload() {
    const ConversationRecord c = store_->conversation(conversationId_);
    systemPrompt_ = c.systemPrompt;
    preset_ = c.preset.isEmpty() ? QStringLiteral("Custom") : c.preset;
    s_ = c.id ? c.sampling : presetNamed("Balanced").settings;
    thinking_ = c.id ? c.thinking : true;
    emit changed();
}

void ConversationSettings::setThinking(bool on) {
    if (on == thinking_) return;
    thinking_ = on;
    if (conversationId_ > 0) store_->setThinking(conversationId_, on);
    emit changed();
}

void ConversationSettings::setSystemPrompt(const QString& s) {
    if (s == systemPrompt_) return;
    systemPrompt_ = s;
    save();
}

void ConversationSettings::applyPreset(const QString& name) {
    const SamplingPreset p = presetNamed(name);
    preset_ = p.name;
    s_ = p.settings;
    save();
}

void ConversationSettings::save() {
    if (conversationId_ > 0) store_->updateSettings(conversationId_, systemPrompt_, s_, preset_);
    emit changed();
}

}  // namespace folio::app
