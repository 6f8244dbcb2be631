#pragma once
// The Download page's progress rows: one per repository being fetched, with bytes, speed and time
// left (in total and for the files in flight), and pause / resume / cancel. Each download runs on its
// own thread (DownloadJob) and several may run at once; the GUI thread only receives copies of their
// status, so chatting goes on meanwhile. Unfinished downloads are remembered in settings.ini and come
// back paused at the next start (their partial data is in the hub cache).
#include <QAbstractListModel>
#include <QSettings>
#include <QtQml/qqmlregistration.h>

#include <memory>
#include <vector>

#include "app/gui/models/download_job.h"

namespace folio::app {

class HubAccount;

class DownloadListModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(int activeCount READ activeCount NOTIFY countChanged)
public:
    enum Role {
        RepoRole = Qt::UserRole + 1,
        RevisionRole,
        StateRole,       // "listing", "downloading", "paused", "done", "failed", "cancelled"
        ProgressRole,    // 0..1, or -1 before the size is known
        BytesTextRole,   // "1.2 GB of 4.7 GB"
        SpeedTextRole,   // "35 MB/s" ("" when not moving)
        EtaTextRole,     // "1m08s left"
        FilesTextRole,   // the files in flight with their own progress
        MessageRole,     // the latest notice, or the error
        PathRole,        // the folder to load, once done
    };
    Q_ENUM(Role)

    DownloadListModel(HubAccount* account, const QString& settingsFile, QObject* parent = nullptr);
    ~DownloadListModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;
    int count() const { return int(rows_.size()); }
    int activeCount() const;

    // Starts (or resumes) ORG/NAME at `revision`. Returns "" or what is wrong with the request.
    Q_INVOKABLE QString start(const QString& repo, const QString& revision = QStringLiteral("main"));
    Q_INVOKABLE void pause(int row);
    Q_INVOKABLE void resume(int row);
    Q_INVOKABLE void cancel(int row);   // stops and deletes the partial data
    Q_INVOKABLE void dismiss(int row);  // removes a finished, failed or cancelled row

    // Retry timings and the like (tests make them quick).
    void setPullOptions(const hub::PullOptions& o) { options_ = o; }

signals:
    void countChanged();
    void downloadFinished(const QString& repo, const QString& path);

private:
    struct Row {
        quint64 id = 0;
        QString repo, revision, state;
        hub::PullStatus status;
        bool sized = false;
        quint64 partialBytes = 0;  // before the first status of a resumed download
        QString message, path;
        std::unique_ptr<DownloadJob> job;
    };
    int indexOf(quint64 id) const;
    void launch(Row& row);
    void onStatus(quint64 id, const hub::PullStatus& s);
    void onNotice(quint64 id, const QString& notice);
    void onFinished(quint64 id, DownloadJob::Outcome outcome, const QString& message, const QString& path);
    void touch(int index);
    void saveUnfinished();

    HubAccount* account_;
    QSettings settings_;
    hub::PullOptions options_;
    std::vector<Row> rows_;
    quint64 nextId_ = 1;
};

}  // namespace folio::app
