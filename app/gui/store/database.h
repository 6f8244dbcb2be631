#pragma once
// Opens the history database file: WAL, foreign keys, schema migrated. A file SQLite cannot read is
// moved aside (never deleted) and a fresh database is started, with a message saying where it went.
#include <QSqlDatabase>
#include <QString>

namespace folio::app {

struct OpenedDatabase {
    QSqlDatabase db;
    QString recoveryMessage;  // non-empty when the old file was moved aside
    QString movedTo;          // where it went
};

// `connectionName` must be unique per open database. Throws StoreError when the file can neither be
// opened nor moved aside (e.g. a read-only folder), or is from a newer Folio.
OpenedDatabase openDatabase(const QString& path, const QString& connectionName);

// Closes and unregisters the connection.
void closeDatabase(const QString& connectionName);

}  // namespace folio::app
