#include "app/gui/store/database.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>

#include "app/gui/store/migrations.h"
#include "app/gui/store/store_error.h"

namespace folio::app {
namespace {

// Empty when the file looks healthy, else why not.
QString healthProblem(QSqlDatabase& db) {
    QSqlQuery q(db);
    if (!q.exec("PRAGMA quick_check")) return q.lastError().text();
    QStringList problems;
    while (q.next()) {
        const QString row = q.value(0).toString();
        if (row != QLatin1String("ok")) problems << row;
    }
    return problems.join("; ").left(300);
}

void configure(QSqlDatabase& db) {
    QSqlQuery q(db);
    // WAL: a reader never blocks the writer and a killed process loses nothing that was committed.
    for (const char* pragma : {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL",
                               "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 2000"}) {
        if (!q.exec(pragma)) {
            throw StoreError(QStringLiteral("cannot configure the history database %1 (%2): %3")
                                 .arg(db.databaseName(), pragma, q.lastError().text()));
        }
    }
}

bool openConnection(QSqlDatabase& db, const QString& path, QString* problem) {
    db.setDatabaseName(path);
    if (!db.open()) {
        *problem = db.lastError().text();
        return false;
    }
    *problem = healthProblem(db);
    return problem->isEmpty();
}

QString moveAside(const QString& path) {
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    QString target = path + ".corrupt-" + stamp;
    for (int i = 2; QFileInfo::exists(target); ++i) target = path + ".corrupt-" + stamp + "-" + QString::number(i);
    if (!QFile::rename(path, target)) {
        throw StoreError(QStringLiteral("the history database %1 cannot be read and could not be moved aside "
                                        "to %2 either; check the folder's permissions or start with another "
                                        "--data-dir").arg(path, target));
    }
    // The WAL and shared-memory files belong to the damaged database: keep them beside it.
    for (const char* suffix : {"-wal", "-shm"}) {
        if (QFileInfo::exists(path + suffix)) QFile::rename(path + suffix, target + suffix);
    }
    return target;
}

}  // namespace

OpenedDatabase openDatabase(const QString& path, const QString& connectionName) {
    if (!QSqlDatabase::isDriverAvailable("QSQLITE")) {
        throw StoreError("the Qt SQLite driver (QSQLITE) is missing; install libqt6sql6-sqlite");
    }
    const QFileInfo info(path);
    if (info.exists() && !info.isReadable()) {
        throw StoreError(QStringLiteral("the history database %1 is not readable by this user; fix its "
                                        "permissions or start with another --data-dir").arg(path));
    }
    OpenedDatabase out;
    out.db = QSqlDatabase::addDatabase("QSQLITE", connectionName);
    QString problem;
    if (!openConnection(out.db, path, &problem)) {
        out.db.close();
        if (!QFileInfo::exists(path)) {
            out.db = QSqlDatabase();
            closeDatabase(connectionName);
            throw StoreError(QStringLiteral("cannot create the history database %1: %2").arg(path, problem));
        }
        out.movedTo = moveAside(path);
        out.recoveryMessage =
            QStringLiteral("Your chat history database could not be read (%1). It was moved to %2 and a new, "
                           "empty history was started. Nothing was deleted: the old file can still be "
                           "inspected or repaired with the sqlite3 tool.").arg(problem, out.movedTo);
        if (!openConnection(out.db, path, &problem)) {
            out.db.close();
            out.db = QSqlDatabase();
            closeDatabase(connectionName);
            throw StoreError(QStringLiteral("cannot create a new history database %1: %2").arg(path, problem));
        }
    }
    try {
        configure(out.db);
        migrate(out.db);
    } catch (...) {
        out.db.close();
        out.db = QSqlDatabase();
        closeDatabase(connectionName);
        throw;
    }
    return out;
}

void closeDatabase(const QString& connectionName) {
    {
        QSqlDatabase db = QSqlDatabase::database(connectionName, false);
        if (db.isValid()) db.close();
    }
    QSqlDatabase::removeDatabase(connectionName);
}

}  // namespace folio::app
