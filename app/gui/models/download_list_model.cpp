#include "app/gui/models/download_list_model.h"

#include <filesystem>

#include "app/gui/models/hub_account.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/hub_cache.h"

namespace folio::app {

namespace {

QString bytes(double b) { return QString::fromStdString(hub::human_bytes(b)); }

QString seconds(double s) {
    if (s < 0) return {};
    const long t = long(s + 0.5);
    if (t >= 3600) return QObject::tr("%1h%2m left").arg(t / 3600).arg((t / 60) % 60, 2, 10, QLatin1Char('0'));
    if (t >= 60) return QObject::tr("%1m%2s left").arg(t / 60).arg(t % 60, 2, 10, QLatin1Char('0'));
    return QObject::tr("%1s left").arg(t);
}

// Bytes of unfinished downloads of a repository in the cache (what a paused row shows).
quint64 partial_bytes(const std::string& cache, const std::string& repo) {
    namespace fs = std::filesystem;
    quint64 n = 0;
    std::error_code ec;
    const fs::path blobs = fs::path(hub::repo_dir(cache, repo)) / "blobs";
    if (fs::is_directory(blobs, ec))
        for (const auto& e : fs::directory_iterator(blobs, ec))
            if (e.path().extension() == ".incomplete") n += e.file_size(ec);
    return n;
}

}  // namespace

DownloadListModel::DownloadListModel(HubAccount* account, const QString& settingsFile, QObject* parent)
    : QAbstractListModel(parent), account_(account), settings_(settingsFile, QSettings::IniFormat) {
    const std::string cache = account_->config().cache_dir;
    for (const QString& entry : settings_.value("downloads/unfinished").toStringList()) {
        const int at = entry.indexOf('@');
        Row r;
        r.id = nextId_++;
        r.repo = entry.left(at);
        r.revision = at < 0 ? QStringLiteral("main") : entry.mid(at + 1);
        r.state = QStringLiteral("paused");
        r.partialBytes = partial_bytes(cache, r.repo.toStdString());
        r.message = tr("Paused when Folio last closed; resume continues where it stopped.");
        rows_.push_back(std::move(r));
    }
}

DownloadListModel::~DownloadListModel() {
    // Jobs stop (keeping their partial data) and their threads end before the rows go; queued
    // updates for this model are then dropped with it.
    for (auto& r : rows_)
        if (r.job) r.job->pause();
    for (auto& r : rows_) r.job.reset();
}

int DownloadListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int DownloadListModel::activeCount() const {
    int n = 0;
    for (const auto& r : rows_) n += (r.state == "listing" || r.state == "downloading") ? 1 : 0;
    return n;
}

QHash<int, QByteArray> DownloadListModel::roleNames() const {
    return {{RepoRole, "repo"},         {RevisionRole, "revision"}, {StateRole, "state"},
            {ProgressRole, "progress"}, {BytesTextRole, "bytesText"}, {SpeedTextRole, "speedText"},
            {EtaTextRole, "etaText"},   {FilesTextRole, "filesText"}, {MessageRole, "message"},
            {PathRole, "path"}};
}

QVariant DownloadListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size())) return {};
    const Row& r = rows_[size_t(index.row())];
    const hub::PullStatus& s = r.status;
    switch (role) {
        case RepoRole: return r.repo;
        case RevisionRole: return r.revision;
        case StateRole: return r.state;
        case ProgressRole: return r.sized && s.total_bytes ? double(s.done_bytes) / double(s.total_bytes) : -1.0;
        case BytesTextRole:
            if (r.state == "cancelled") return QString();
            if (!r.sized) return r.partialBytes ? tr("%1 so far").arg(bytes(double(r.partialBytes))) : QString();
            return tr("%1 of %2").arg(bytes(double(s.done_bytes)), bytes(double(s.total_bytes)));
        case SpeedTextRole:
            return r.state == "downloading" && s.bytes_per_second > 0 ? bytes(s.bytes_per_second) + "/s" : QString();
        case EtaTextRole: return r.state == "downloading" ? seconds(s.eta_seconds) : QString();
        case FilesTextRole: {
            QStringList parts;
            for (const auto& f : s.files)
                if (f.state == hub::FileState::Downloading)
                    parts << tr("%1 %2%").arg(QString::fromStdString(f.path)).arg(f.size ? int(f.done * 100 / f.size) : 100);
            int done = 0;
            for (const auto& f : s.files) done += (f.state == hub::FileState::Done || f.state == hub::FileState::Cached) ? 1 : 0;
            if (r.sized) parts << tr("%1 of %2 files").arg(done).arg(s.files.size());
            return parts.join(QStringLiteral(" · "));
        }
        case MessageRole: return r.message;
        case PathRole: return r.path;
    }
    return {};
}

int DownloadListModel::indexOf(quint64 id) const {
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].id == id) return int(i);
    return -1;
}

void DownloadListModel::touch(int index) {
    if (index < 0) return;
    emit dataChanged(this->index(index), this->index(index));
}

void DownloadListModel::saveUnfinished() {
    QStringList list;
    for (const auto& r : rows_)
        if (r.state != "done" && r.state != "cancelled") list << r.repo + "@" + r.revision;
    if (list.isEmpty()) settings_.remove("downloads/unfinished");
    else settings_.setValue("downloads/unfinished", list);
    settings_.sync();
}

QString DownloadListModel::start(const QString& repo, const QString& revision) {
    try {
        hub::parse_repo_ref(repo.toStdString() + "@" + (revision.isEmpty() ? QStringLiteral("main") : revision).toStdString());
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    const QString rev = revision.isEmpty() ? QStringLiteral("main") : revision;
    for (size_t i = 0; i < rows_.size(); ++i) {
        Row& r = rows_[i];
        if (r.repo != repo || r.revision != rev) continue;
        if (r.job && (r.state == "listing" || r.state == "downloading")) return tr("%1 is already downloading").arg(repo);
        launch(r);
        touch(int(i));
        return {};
    }
    beginInsertRows({}, 0, 0);
    Row r;
    r.id = nextId_++;
    r.repo = repo;
    r.revision = rev;
    rows_.insert(rows_.begin(), std::move(r));
    endInsertRows();
    launch(rows_.front());
    emit countChanged();
    return {};
}

void DownloadListModel::launch(Row& row) {
    row.job.reset();  // a previous, finished job of this row
    row.state = QStringLiteral("listing");
    row.message.clear();
    row.path.clear();
    row.sized = false;
    row.partialBytes = partial_bytes(account_->config().cache_dir, row.repo.toStdString());
    const quint64 id = row.id;
    DownloadJob::Callbacks c;
    // Each callback runs on the job's thread and posts a copy to the GUI thread.
    c.status = [this, id](const hub::PullStatus& s) {
        QMetaObject::invokeMethod(this, [this, id, s] { onStatus(id, s); }, Qt::QueuedConnection);
    };
    c.notice = [this, id](const std::string& n) {
        const QString text = QString::fromStdString(n);
        QMetaObject::invokeMethod(this, [this, id, text] { onNotice(id, text); }, Qt::QueuedConnection);
    };
    c.finished = [this, id](DownloadJob::Outcome o, const std::string& m, const std::string& p) {
        const QString message = QString::fromStdString(m), path = QString::fromStdString(p);
        QMetaObject::invokeMethod(this, [this, id, o, message, path] { onFinished(id, o, message, path); }, Qt::QueuedConnection);
    };
    row.job = std::make_unique<DownloadJob>(account_->config(), hub::RepoRef{row.repo.toStdString(), row.revision.toStdString()},
                                            options_, std::move(c));
    saveUnfinished();
    emit countChanged();
}

void DownloadListModel::onStatus(quint64 id, const hub::PullStatus& s) {
    const int i = indexOf(id);
    if (i < 0) return;
    Row& r = rows_[size_t(i)];
    if (r.state != "listing" && r.state != "downloading") return;  // a late copy after pause or cancel
    r.status = s;
    r.sized = true;
    r.state = QStringLiteral("downloading");
    touch(i);
}

void DownloadListModel::onNotice(quint64 id, const QString& notice) {
    const int i = indexOf(id);
    if (i < 0) return;
    rows_[size_t(i)].message = notice;
    touch(i);
}

void DownloadListModel::onFinished(quint64 id, DownloadJob::Outcome outcome, const QString& message, const QString& path) {
    const int i = indexOf(id);
    if (i < 0) return;
    Row& r = rows_[size_t(i)];
    switch (outcome) {
        case DownloadJob::Outcome::Done:
            r.state = QStringLiteral("done");
            r.path = path;
            r.message = tr("Verified and ready to load.");
            break;
        case DownloadJob::Outcome::Paused:
            r.state = QStringLiteral("paused");
            r.message = tr("Paused; the data downloaded so far is kept.");
            break;
        case DownloadJob::Outcome::Cancelled:
            r.state = QStringLiteral("cancelled");
            r.message = tr("Cancelled; %1.").arg(message);
            break;
        case DownloadJob::Outcome::Failed:
            r.state = QStringLiteral("failed");
            r.message = message;
            break;
    }
    saveUnfinished();
    touch(i);
    emit countChanged();
    if (outcome == DownloadJob::Outcome::Done) emit downloadFinished(r.repo, r.path);
}

void DownloadListModel::pause(int row) {
    if (row < 0 || row >= int(rows_.size()) || !rows_[size_t(row)].job) return;
    rows_[size_t(row)].job->pause();  // the row turns "paused" when the job has stopped
}

void DownloadListModel::resume(int row) {
    if (row < 0 || row >= int(rows_.size())) return;
    Row& r = rows_[size_t(row)];
    if (r.state == "listing" || r.state == "downloading") return;
    launch(r);
    touch(row);
}

void DownloadListModel::cancel(int row) {
    if (row < 0 || row >= int(rows_.size())) return;
    Row& r = rows_[size_t(row)];
    if (r.job && (r.state == "listing" || r.state == "downloading")) {
        r.job->cancel();
        return;
    }
    // Not running: delete its partial data now.
    const uint64_t freed = DownloadJob::discard(account_->config().cache_dir, r.repo.toStdString(), r.status.commit);
    r.state = QStringLiteral("cancelled");
    r.message = tr("Cancelled; deleted %1 of partial data.").arg(bytes(double(freed)));
    saveUnfinished();
    touch(row);
    emit countChanged();
}

void DownloadListModel::dismiss(int row) {
    if (row < 0 || row >= int(rows_.size())) return;
    if (rows_[size_t(row)].state == "listing" || rows_[size_t(row)].state == "downloading") return;
    beginRemoveRows({}, row, row);
    rows_.erase(rows_.begin() + row);
    endRemoveRows();
    saveUnfinished();
    emit countChanged();
}

}  // namespace folio::app
