#pragma once
// A conversation as a file: Markdown (the branch on screen, for reading and sharing) and JSON (every
// branch with its settings and reply metadata; what import reads back).
#include <QByteArray>
#include <QString>

namespace folio::app {

class ChatStore;

QString exportMarkdown(const ChatStore& store, qint64 conversationId);
QByteArray exportJson(const ChatStore& store, qint64 conversationId);

// Creates a new conversation from exportJson's format and returns its id. Validates the whole file
// before writing anything; throws StoreError naming the field at fault.
qint64 importJson(ChatStore& store, const QByteArray& json);

}  // namespace folio::app
