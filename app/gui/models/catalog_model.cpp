#include "app/gui/models/catalog_model.h"

#include <QFile>

#include "app/gui/models/model_fitter.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"

namespace folio::app {

namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

CatalogModel::CatalogModel(const QString& path, ModelFitter* fitter, QObject* parent)
    : QAbstractListModel(parent), fitter_(fitter) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error_ = tr("The catalog of recommended models (%1) cannot be read.").arg(path);
    } else {
        try {
            catalog_ = hub::parse_catalog(f.readAll().toStdString(), path.toStdString());
            for (const auto& m : catalog_.models) summaries_.push_back(hub::catalog_summary(m));
        } catch (const Error& e) {
            error_ = qs(e.what());
        }
    }
    connect(fitter_, &ModelFitter::changed, this, [this] {
        if (!summaries_.empty()) emit dataChanged(index(0), index(int(summaries_.size()) - 1), {FitsRole, FitTextRole});
    });
}

int CatalogModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(catalog_.models.size()); }

QHash<int, QByteArray> CatalogModel::roleNames() const {
    return {{RepoRole, "repo"}, {RevisionRole, "revision"}, {FactsRole, "facts"},     {NoteRole, "note"},
            {FitsRole, "fits"}, {FitTextRole, "fitText"},   {ProblemRole, "problem"}};
}

QVariant CatalogModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const hub::CatalogEntry& e = catalog_.models[size_t(index.row())];
    const hub::ModelSummary& s = summaries_[size_t(index.row())];
    switch (role) {
        case RepoRole: return qs(e.repo_id);
        case RevisionRole: return qs(e.revision);
        case FactsRole: {
            QStringList f{qs(e.family)};
            if (!e.parameters.empty()) f << qs(e.parameters);
            f << qs(e.format) << qs(hub::human_bytes(double(e.size_bytes)));
            return f.join(QStringLiteral(" · "));
        }
        case NoteRole: return qs(e.note);
        case FitsRole: {
            const auto est = fitter_->estimate(s);
            return !est.known ? QStringLiteral("unknown") : est.fits ? QStringLiteral("yes") : QStringLiteral("no");
        }
        case FitTextRole: return qs(fitter_->estimate(s).verdict);
        case ProblemRole: return qs(s.problem);
    }
    return {};
}

}  // namespace folio::app
