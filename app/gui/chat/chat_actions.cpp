#include "app/gui/chat/chat_actions.h"

#include <QClipboard>
#include <QFile>
#include <QGuiApplication>
#include <QSaveFile>

#include "app/gui/chat/generation_hub.h"
#include "app/gui/chat/sampling_presets.h"
#include "app/gui/store/chat_store.h"
#include "app/gui/store/store_error.h"
#include "app/gui/store/transcript_io.h"

namespace folio::app {
namespace {

// The first line of the first prompt, cut at a word near 48 characters.
QString titleFrom(const QString& text) {
    QString t = text.section('\n', 0, 0).simplified();
    if (t.size() > 48) {
        t = t.left(48);
        const int space = int(t.lastIndexOf(' '));
        if (space > 24) t = t.left(space);
        t += QStringLiteral("…");
    }
    return t;
}

}  // namespace

ChatActions::ChatActions(ChatStore* store, GenerationHub* hub, QObject* parent)
    : QObject(parent), store_(store), hub_(hub) {}

qint64 ChatActions::newConversation(const QString& title, const QString& preset, const QString& systemPrompt) {
    const SamplingPreset p = presetNamed(preset);
    const qint64 id = store_->createConversation(title, systemPrompt, p.settings, p.name);
    emit conversationsChanged();
    return id;
}

void ChatActions::rename(qint64 conversationId, const QString& title) {
    store_->renameConversation(conversationId, title.simplified());
    emit conversationsChanged();
}

void ChatActions::remove(qint64 conversationId) {
    hub_->stop(conversationId);
    store_->deleteConversation(conversationId);
    emit conversationsChanged();
}

qint64 ChatActions::send(qint64 conversationId, const QString& text) {
    const QString prompt = text.trimmed();
    if (prompt.isEmpty() || conversationId <= 0) return 0;
    if (hub_->isGenerating(conversationId)) {
        emit error(tr("This chat is still answering: stop it or wait for it to finish."));
        return 0;
    }
    const ConversationRecord c = store_->conversation(conversationId);
    if (c.id == 0) return 0;
    if (c.title.isEmpty()) store_->renameConversation(c.id, titleFrom(prompt));
    MessageRecord user;
    user.conversationId = c.id;
    user.parentId = c.activeLeafId;
    user.role = QStringLiteral("user");
    user.content = prompt;
    store_->addMessage(user);
    const qint64 reply = hub_->startReply(c.id, user.id);
    emit conversationsChanged();
    hub_->notifyPathChanged(c.id);
    emit pathChanged(c.id);
    return reply;
}

qint64 ChatActions::regenerate(qint64 assistantMessageId) {
    const MessageRecord m = store_->message(assistantMessageId);
    if (m.id == 0 || m.role != QLatin1String("assistant") || m.parentId == 0) return 0;
    const qint64 reply = hub_->startReply(m.conversationId, m.parentId);
    hub_->notifyPathChanged(m.conversationId);
    emit pathChanged(m.conversationId);
    return reply;
}

qint64 ChatActions::editAndResend(qint64 userMessageId, const QString& text) {
    const MessageRecord old = store_->message(userMessageId);
    if (old.id == 0 || old.role != QLatin1String("user") || text.trimmed().isEmpty()) return 0;
    if (hub_->isGenerating(old.conversationId)) {
        emit error(tr("This chat is still answering: stop it first."));
        return 0;
    }
    MessageRecord edited;
    edited.conversationId = old.conversationId;
    edited.parentId = old.parentId;
    edited.role = QStringLiteral("user");
    edited.content = text.trimmed();
    store_->addMessage(edited);
    const qint64 reply = hub_->startReply(old.conversationId, edited.id);
    hub_->notifyPathChanged(old.conversationId);
    emit pathChanged(old.conversationId);
    return reply;
}

qint64 ChatActions::continueReply(qint64 assistantMessageId) {
    const qint64 id = hub_->continueReply(assistantMessageId);
    if (id) {
        const qint64 c = store_->message(id).conversationId;
        hub_->notifyPathChanged(c);
        emit pathChanged(c);
    }
    return id;
}

void ChatActions::switchBranch(qint64 messageId, int step) {
    const MessageRecord m = store_->message(messageId);
    if (m.id == 0) return;
    if (hub_->isGenerating(m.conversationId)) {
        emit error(tr("Wait for the reply to finish (or stop it) before switching branches."));
        return;
    }
    const QList<qint64> sib = store_->siblings(m);
    const int i = int(sib.indexOf(m.id)) + step;
    if (i < 0 || i >= sib.size()) return;
    store_->setActiveLeaf(m.conversationId, store_->newestLeafUnder(sib[i]));
    hub_->notifyPathChanged(m.conversationId);
    emit pathChanged(m.conversationId);
}

void ChatActions::switchDraft(qint64 messageId, int step) {
    const int i = hub_->chosenDraft(messageId) + step;
    if (i < 0 || i >= hub_->draftCount(messageId)) return;
    hub_->chooseDraft(messageId, i);
}

void ChatActions::stop(qint64 conversationId) { hub_->stop(conversationId); }

void ChatActions::copyToClipboard(const QString& text) {
    if (QClipboard* c = QGuiApplication::clipboard()) c->setText(text);
}

bool ChatActions::writeFile(const QUrl& file, const QByteArray& bytes) {
    QSaveFile f(file.isLocalFile() ? file.toLocalFile() : file.toString());
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        emit error(tr("Could not write %1: %2").arg(f.fileName(), f.errorString()));
        return false;
    }
    emit notice(tr("Saved %1").arg(f.fileName()));
    return true;
}

bool ChatActions::exportMarkdown(qint64 conversationId, const QUrl& file) {
    try {
        return writeFile(file, folio::app::exportMarkdown(*store_, conversationId).toUtf8());
    } catch (const StoreError& e) {
        emit error(e.message());
        return false;
    }
}

bool ChatActions::exportJson(qint64 conversationId, const QUrl& file) {
    try {
        return writeFile(file, folio::app::exportJson(*store_, conversationId));
    } catch (const StoreError& e) {
        emit error(e.message());
        return false;
    }
}

qint64 ChatActions::importJson(const QUrl& file) {
    const QString path = file.isLocalFile() ? file.toLocalFile() : file.toString();
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        emit error(tr("Could not read %1: %2").arg(path, f.errorString()));
        return 0;
    }
    try {
        const qint64 id = folio::app::importJson(*store_, f.readAll());
        emit conversationsChanged();
        emit notice(tr("Imported %1").arg(path));
        return id;
    } catch (const StoreError& e) {
        emit error(tr("Could not import %1: %2").arg(path, e.message()));
        return 0;
    }
}

}  // namespace folio::app
