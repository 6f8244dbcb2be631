#include "app/gui/models/local_model_list.h"

#include "app/gui/models/hub_account.h"
#include "app/gui/models/model_fitter.h"
#include "app/gui/models/model_library.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"
#include "engine/hub/cache_scan.h"

namespace folio::app {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

LocalModelListModel::LocalModelListModel(HubAccount* account, ModelLibrary* library, ModelFitter* fitter, QObject* parent)
    : QAbstractListModel(parent), account_(account), library_(library), fitter_(fitter) {
    connect(fitter_, &ModelFitter::changed, this, [this] {
        if (!models_.empty()) emit dataChanged(index(0), index(int(models_.size()) - 1), {FitsRole, FitTextRole});
    });
    connect(library_, &ModelLibrary::changed, this, &LocalModelListModel::refresh);
}

int LocalModelListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(models_.size()); }

QHash<int, QByteArray> LocalModelListModel::roleNames() const {
    return {{NameRole, "name"},   {PathRole, "path"},       {SourceRole, "source"},   {DetailRole, "detail"},
            {FactsRole, "facts"}, {FitsRole, "fits"},       {FitTextRole, "fitText"}, {ProblemRole, "problem"},
            {PartialTextRole, "partialText"}};
}

QVariant LocalModelListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(models_.size())) return {};
    const hub::LocalModel& m = models_[size_t(index.row())];
    const hub::ModelSummary& s = m.summary;
    switch (role) {
        case NameRole: return qs(m.name);
        case PathRole: return qs(m.path);
        case SourceRole: return m.from_cache ? QStringLiteral("hub") : QStringLiteral("folder");
        case DetailRole: {
            if (!m.from_cache) return qs(m.path);
            QStringList refs;
            for (const auto& r : m.refs) refs << qs(r);
            return (refs.isEmpty() ? QString() : refs.join(", ") + " · ") + tr("commit %1").arg(qs(m.commit.substr(0, 12)));
        }
        case FactsRole: {
            QStringList f;
            if (!s.family.empty()) f << qs(s.family);
            if (s.parameters) f << qs(hub::parameters_text(s.parameters));
            if (!s.format.empty()) f << qs(s.format);
            f << qs(hub::human_bytes(double(m.size_on_disk)));
            return f.join(QStringLiteral(" · "));
        }
        case FitsRole: {
            const auto e = fitter_->estimate(s);
            return !e.known ? QStringLiteral("unknown") : e.fits ? QStringLiteral("yes") : QStringLiteral("no");
        }
        case FitTextRole: return qs(fitter_->estimate(s).verdict);
        case ProblemRole: return qs(s.problem);
        case PartialTextRole:
            return m.partial_bytes ? tr("%1 of an unfinished download").arg(qs(hub::human_bytes(double(m.partial_bytes)))) : QString();
    }
    return {};
}

void LocalModelListModel::refresh() {
    if (scanning_) {
        again_ = true;  // one more scan once this one is in
        return;
    }
    scanning_ = true;
    emit scanningChanged();
    std::vector<std::string> folders;
    for (const QString& spec : library_->recentModels())
        if (!spec.startsWith(QLatin1String("dummy:"))) folders.push_back(spec.toStdString());
    const std::string cache = account_->config().cache_dir;
    tasks_.run([cache, folders] { return hub::list_local_models(cache, folders); },
               [this](std::vector<hub::LocalModel> models) { setModels(std::move(models)); });
}

void LocalModelListModel::setModels(std::vector<hub::LocalModel> models) {
    beginResetModel();
    models_ = std::move(models);
    endResetModel();
    scanning_ = false;
    emit countChanged();
    emit scanningChanged();
    emit scanned();
    if (again_) {
        again_ = false;
        refresh();
    }
}

void LocalModelListModel::remove(int row) {
    if (row < 0 || row >= int(models_.size())) return;
    const hub::LocalModel m = models_[size_t(row)];
    error_.clear();
    if (m.from_cache) {
        try {
            hub::remove_cached_repo(account_->config().cache_dir, m.repo_id, m.commit);
        } catch (const Error& e) {
            error_ = qs(e.what());
        }
    }
    library_->forget(qs(m.path));  // also refreshes (ModelLibrary::changed)
    emit errorChanged();
    refresh();
}

}  // namespace folio::app
