// The history store's import (app/gui/store/transcript_io.h): the input is a JSON export file. An
// import either fails with StoreError and leaves the store as it was, or makes one conversation
// whose export imports again to the same messages (roles and contents, in order).
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstddef>
#include <cstdint>

#include "app/gui/store/chat_store.h"
#include "app/gui/store/store_error.h"
#include "app/gui/store/transcript_io.h"

namespace {

using folio::app::ChatStore;

QList<QPair<QString, QString>> messagesOf(const QByteArray& exported) {
    QList<QPair<QString, QString>> out;
    for (const QJsonValue& v : QJsonDocument::fromJson(exported).object().value("messages").toArray())
        out.append({v.toObject().value("role").toString(), v.toObject().value("content").toString()});
    return out;
}

}  // namespace

// Qt Sql loads its SQLite driver as a plugin, which needs an application object.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
    new QCoreApplication(*argc, *argv);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static ChatStore store(QStringLiteral(":memory:"));
    const int before = int(store.conversations().size());
    qint64 id = 0;
    try {
        id = folio::app::importJson(store, QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)));
    } catch (const folio::app::StoreError&) {
        if (store.conversations().size() != before) __builtin_trap();  // a refused file wrote something
        return 0;
    }
    if (id <= 0 || store.conversations().size() != before + 1) __builtin_trap();
    const QByteArray exported = folio::app::exportJson(store, id);
    qint64 again = 0;
    try {
        again = folio::app::importJson(store, exported);
    } catch (const folio::app::StoreError&) {
        __builtin_trap();  // our own export must import
    }
    if (messagesOf(folio::app::exportJson(store, again)) != messagesOf(exported)) __builtin_trap();
    store.deleteConversation(again);
    store.deleteConversation(id);
    return 0;
}
