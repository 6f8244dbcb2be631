#include "app/gui/shell/log_model.h"

#include "app/gui/chat/thread_guard.h"

namespace folio::app {

int LogModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(entries_.size()); }

QVariant LogModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= entries_.size()) return {};
    const Entry& e = entries_[entries_.size() - 1 - index.row()];  // newest first
    if (role == LevelRole) return e.level;
    if (role == TextRole) return e.text;
    if (role == TimeRole) return e.time.toString("HH:mm:ss");
    return {};
}

QHash<int, QByteArray> LogModel::roleNames() const { return {{LevelRole, "level"}, {TextRole, "text"}, {TimeRole, "time"}}; }

void LogModel::add(const QString& level, const QString& text) {
    requireOwnThread(this, "LogModel::add");
    beginResetModel();
    entries_.append(Entry{level, text, QDateTime::currentDateTime()});
    if (entries_.size() > 200) entries_.removeFirst();
    endResetModel();
    latest_ = text;
    latestLevel_ = level;
    emit latestChanged();
}

void LogModel::dismissLatest() {
    latest_.clear();
    emit latestChanged();
}

}  // namespace folio::app
