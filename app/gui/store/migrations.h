#pragma once
// The history schema and how every earlier version is brought up to date. Each step runs in one
// transaction and sets PRAGMA user_version, so an interrupted upgrade leaves the previous version.
#include <QSqlDatabase>

namespace folio::app {

// The version a fresh database is created at and every older one is migrated to.
constexpr int kSchemaVersion = 7;

// Reads PRAGMA user_version.
int schemaVersion(QSqlDatabase& db);

// Applies the steps from the current version up to `target` (tests use a lower target to build
// databases as earlier releases left them). Throws StoreError when a step fails or when the database
// is newer than this program.
void migrate(QSqlDatabase& db, int target = kSchemaVersion);

}  // namespace folio::app
