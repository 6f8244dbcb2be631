#include "app/gui/chat/conversation_settings.h"

#include <algorithm>

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
    drafts_ = c.id ? c.drafts : 1;
    emit changed();
}

void ConversationSettings::setThinking(bool on) {
    if (on == thinking_) return;
    thinking_ = on;
    if (conversationId_ > 0) store_->setThinking(conversationId_, on);
    emit changed();
}

void ConversationSettings::setDrafts(int n) {
    n = std::clamp(n, 1, kMaxDrafts);
    if (n == drafts_) return;
    drafts_ = n;
    if (conversationId_ > 0) store_->setDrafts(conversationId_, n);
    emit changed();
}

QString ConversationSettings::draftsNote() const {
    if (drafts_ == 1) return tr("One reply per message.");
    return tr("%1 drafts per reply, sampled at once from one prompt (seed + i each); flip between them on the reply. "
              "The one shown is what the chat goes on with.").arg(drafts_);
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
