#include "app/gui/models/model_library.h"

#include <QDir>
#include <QFileInfo>
#include <QUrl>

#include "engine/model/model.h"

namespace folio::app {

ModelLibrary::ModelLibrary(const QString& settingsFile, QObject* parent)
    : QObject(parent), settings_(settingsFile, QSettings::IniFormat) {}

QStringList ModelLibrary::recentModels() const { return settings_.value("models/recent").toStringList(); }
QString ModelLibrary::lastModel() const { return settings_.value("models/last").toString(); }
QString ModelLibrary::backend() const { return settings_.value("models/backend", "auto").toString(); }

void ModelLibrary::setBackend(const QString& b) {
    settings_.setValue("models/backend", b);
    emit changed();
}

QString ModelLibrary::quantization() const { return settings_.value("models/quantization", "none").toString(); }

void ModelLibrary::setQuantization(const QString& q) {
    settings_.setValue("models/quantization", q);
    emit changed();
}

QString ModelLibrary::kvCacheDtype() const { return settings_.value("models/kv_cache_dtype", "auto").toString(); }

void ModelLibrary::setKvCacheDtype(const QString& d) {
    settings_.setValue("models/kv_cache_dtype", d);
    emit changed();
}

void ModelLibrary::remember(const QString& spec) {
    QStringList recent = recentModels();
    recent.removeAll(spec);
    recent.prepend(spec);
    while (recent.size() > 8) recent.removeLast();
    settings_.setValue("models/recent", recent);
    settings_.setValue("models/last", spec);
    settings_.sync();
    emit changed();
}

void ModelLibrary::forget(const QString& spec) {
    QStringList recent = recentModels();
    recent.removeAll(spec);
    settings_.setValue("models/recent", recent);
    if (lastModel() == spec) settings_.remove("models/last");
    emit changed();
}

QString ModelLibrary::folderProblem(const QString& path) const {
    if (path.startsWith(QLatin1String("dummy:"))) return {};
    const QFileInfo info(path);
    if (!info.exists()) return tr("%1 does not exist.").arg(path);
    if (!info.isDir()) return tr("%1 is a file; choose the folder that holds config.json and the .safetensors files.").arg(path);
    const QDir dir(path);
    if (!dir.exists("config.json")) return tr("%1 has no config.json: it is not a Hugging Face model folder.").arg(path);
    if (dir.entryList({"*.safetensors"}, QDir::Files).isEmpty()) {
        return tr("%1 has no .safetensors weights (PyTorch .bin files are not supported; convert them or download "
                  "the safetensors version).").arg(path);
    }
    if (!dir.exists("tokenizer.json") && !dir.exists("tokenizer.model"))
        return tr("%1 has no tokenizer.json or tokenizer.model (the model's tokenizer).").arg(path);
    return {};
}

QString ModelLibrary::localPath(const QUrl& url) const { return url.isLocalFile() ? url.toLocalFile() : url.toString(); }

QString ModelLibrary::displayName(const QString& spec) const {
    if (spec.startsWith(QLatin1String("dummy:"))) return spec;
    return QString::fromStdString(model_display_name(spec.toStdString()));
}

}  // namespace folio::app
