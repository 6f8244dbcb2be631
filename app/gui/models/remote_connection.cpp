#include "app/gui/models/remote_connection.h"

#include <QFile>
#include <string>
#include <vector>

#include "app/gui/bridge/engine_bridge.h"
#include "engine/remote/remote_engine.h"

namespace folio::app {

RemoteConnection::RemoteConnection(EngineBridge* bridge, const QString& settingsFile, QObject* parent)
    : QObject(parent), bridge_(bridge), settings_(settingsFile, QSettings::IniFormat) {
    endpoint_ = settings_.value("remote/endpoint").toString();
    model_ = settings_.value("remote/model").toString();
    apiKey_ = settings_.value("remote/apiKey").toString();
    connect(bridge_, &EngineBridge::stateChanged, this, &RemoteConnection::changed);  // connected
    // A local model loaded: the next start loads that, not the server.
    connect(bridge_, &EngineBridge::stateChanged, this, [this] {
        if (bridge_->state() == EngineBridge::State::Ready && bridge_->backendName() != QLatin1String("remote"))
            settings_.setValue("remote/connected", false);
    });
}

void RemoteConnection::setEndpoint(const QString& url) {
    const QString u = url.trimmed();
    if (u == endpoint_) return;
    endpoint_ = u;
    settings_.setValue("remote/endpoint", u);
    models_.clear();  // another server's list
    emit changed();
}

void RemoteConnection::setModel(const QString& model) {
    if (model == model_) return;
    model_ = model;
    settings_.setValue("remote/model", model);
    emit changed();
}

void RemoteConnection::setApiKey(const QString& key) {
    const QString k = key.trimmed();
    if (k == apiKey_) return;
    apiKey_ = k;
    if (k.isEmpty())
        settings_.remove("remote/apiKey");
    else
        settings_.setValue("remote/apiKey", k);
    settings_.sync();
    QFile::setPermissions(settings_.fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    emit changed();
}

bool RemoteConnection::connected() const {
    return bridge_->state() == EngineBridge::State::Ready && bridge_->backendName() == QLatin1String("remote");
}

void RemoteConnection::fetchModels() {
    if (fetching_) return;
    fetching_ = true;
    error_.clear();
    emit changed();
    remote::RemoteOptions options;
    options.endpoint = endpoint_.toStdString();
    options.api_key = apiKey_.toStdString();
    options.connect_timeout_s = 5;
    struct Result {
        std::vector<std::string> ids;
        std::string error;
    };
    tasks_.run(
        [options] {
            Result r;
            try {
                r.ids = remote::list_models(options);
                if (r.ids.empty()) r.error = "the server lists no model";
            } catch (const std::exception& e) {
                r.error = e.what();
            }
            return r;
        },
        [this](Result r) {
            fetching_ = false;
            error_ = QString::fromStdString(r.error);
            models_.clear();
            for (const std::string& id : r.ids) models_ << QString::fromStdString(id);
            if (!models_.isEmpty() && !models_.contains(model_)) setModel(models_.front());
            emit changed();
        });
}

bool RemoteConnection::restore() {
    if (!settings_.value("remote/connected", false).toBool() || endpoint_.isEmpty() || model_.isEmpty()) return false;
    connectToServer();
    return true;
}

void RemoteConnection::connectToServer() {
    error_.clear();
    settings_.setValue("remote/connected", true);
    emit changed();
    bridge_->connectRemote(endpoint_, apiKey_, model_);
}

}  // namespace folio::app
