#include "app/gui/models/hub_search_model.h"

#include "app/gui/models/hub_account.h"
#include "app/gui/models/model_fitter.h"
#include "engine/core/error.h"
#include "engine/hub/blob_download.h"

namespace folio::app {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString count_text(int64_t n) {
    if (n >= 1000000) return QString::number(double(n) / 1e6, 'f', 1) + "M";
    if (n >= 1000) return QString::number(n / 1000) + "K";
    return QString::number(n);
}

}  // namespace

HubSearchModel::HubSearchModel(HubAccount* account, ModelFitter* fitter, QObject* parent)
    : QAbstractListModel(parent), account_(account), fitter_(fitter) {
    connect(fitter_, &ModelFitter::changed, this, [this] {
        if (!hits_.empty()) emit dataChanged(index(0), index(int(hits_.size()) - 1), {FitsRole, FitTextRole});
    });
}

int HubSearchModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(hits_.size()); }

QHash<int, QByteArray> HubSearchModel::roleNames() const {
    return {{RepoRole, "repo"}, {FactsRole, "facts"}, {FitsRole, "fits"}, {FitTextRole, "fitText"}, {GatedRole, "gated"}};
}

QVariant HubSearchModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(hits_.size())) return {};
    const hub::SearchHit& h = hits_[size_t(index.row())];
    const hub::MemoryBudget& b = fitter_->budget();
    const bool known = fitter_->ready() && h.weight_bytes > 0;
    switch (role) {
        case RepoRole: return qs(h.repo_id);
        case FactsRole: {
            QStringList f;
            if (!h.format.empty()) f << qs(h.format);
            if (h.weight_bytes) f << qs(hub::human_bytes(double(h.weight_bytes)));
            f << tr("%1 downloads").arg(count_text(h.downloads));
            if (!h.gated.empty()) f << tr("gated");
            return f.join(QStringLiteral(" · "));
        }
        case FitsRole: return !known ? QStringLiteral("unknown") : h.weight_bytes < b.usable ? QStringLiteral("yes") : QStringLiteral("no");
        case FitTextRole:
            if (!known) return tr("size unknown until the files are listed");
            return h.weight_bytes < b.usable
                       ? tr("weights %1 of %2 usable").arg(qs(hub::human_bytes(double(h.weight_bytes))), qs(hub::human_bytes(double(b.usable))))
                       : tr("weights %1: more than the %2 usable").arg(qs(hub::human_bytes(double(h.weight_bytes))),
                                                                       qs(hub::human_bytes(double(b.usable))));
        case GatedRole: return !h.gated.empty();
    }
    return {};
}

void HubSearchModel::search(const QString& text, const QString& format, double maxGigabytes) {
    hub::SearchQuery q;
    q.text = text.trimmed().toStdString();
    if (format == "AWQ") q.tags = {"awq"};
    else if (format == "FP8") q.tags = {"fp8"};
    else if (format == "safetensors") q.tags = {"safetensors"};
    q.tags.push_back("text-generation");
    q.max_bytes = maxGigabytes > 0 ? uint64_t(maxGigabytes * 1e9) : 0;
    q.limit = 40;
    const int number = ++searches_;
    busy_ = true;
    emit busyChanged();
    const hub::HubConfig config = account_->config();
    tasks_.run(
        [config, q, number] {
            Answer a;
            a.number = number;
            try {
                a.hits = hub::search_models(hub::HubClient(config), q);
            } catch (const std::exception& e) {
                a.error = QString::fromStdString(e.what());
            }
            return a;
        },
        [this](Answer a) { apply(std::move(a)); });
}

void HubSearchModel::apply(Answer a) {
    if (a.number != searches_) return;  // an older search answered late
    beginResetModel();
    hits_ = std::move(a.hits);
    endResetModel();
    error_ = a.error;
    busy_ = false;
    emit busyChanged();
    emit finished();
}

}  // namespace folio::app
