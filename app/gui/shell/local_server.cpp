#include "app/gui/shell/local_server.h"

#include <QFile>

#include "app/gui/bridge/engine_bridge.h"

namespace folio::app {

LocalServer::LocalServer(EngineBridge* bridge, const QString& settingsFile, QObject* parent)
    : QObject(parent), bridge_(bridge), settings_(settingsFile, QSettings::IniFormat) {
    port_ = settings_.value("serve/port", kDefaultPort).toInt();
    apiKey_ = settings_.value("serve/apiKey").toString();
    connect(bridge_, &EngineBridge::servingChanged, this, &LocalServer::onServingChanged);
    connect(bridge_, &EngineBridge::stateChanged, this, &LocalServer::changed);  // modelServed, status
    restorePending_ = settings_.value("serve/enabled", false).toBool();
    connect(bridge_, &EngineBridge::stateChanged, this, &LocalServer::restoreOnceLoaded);
    restoreOnceLoaded();
}

void LocalServer::restoreOnceLoaded() {
    if (!restorePending_ || bridge_->state() != EngineBridge::State::Ready || bridge_->backendName() == QLatin1String("remote")) return;
    setEnabled(true);
}

void LocalServer::setEnabled(bool on) {
    restorePending_ = false;  // the user's choice (or the restore itself) settles it
    if (on == enabled_) return;
    enabled_ = on;
    settings_.setValue("serve/enabled", on);
    if (on) {
        status_ = {};  // "Starting…" until the worker reports
        bridge_->startServing(port_, apiKey_);
    } else {
        bridge_->stopServing();  // listening stays true until the worker has closed the port
    }
    emit changed();
}

void LocalServer::setPort(int port) {
    if (port < 0 || port > 65535 || port == port_) return;
    port_ = port;
    settings_.setValue("serve/port", port);
    restart();
    emit changed();
}

void LocalServer::setApiKey(const QString& key) {
    const QString k = key.trimmed();
    if (k == apiKey_) return;
    apiKey_ = k;
    if (k.isEmpty())
        settings_.remove("serve/apiKey");
    else
        settings_.setValue("serve/apiKey", k);
    settings_.sync();
    // The key sits in settings.ini: readable by its owner only (as the Hugging Face token).
    QFile::setPermissions(settings_.fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    restart();
    emit changed();
}

void LocalServer::restart() {
    if (!enabled_) return;
    status_ = {};  // until the worker reports
    bridge_->startServing(port_, apiKey_);  // the worker closes the old port first
}

bool LocalServer::modelServed() const {
    // Chats through a remote server leave no local engine to lend: the API answers 503 then.
    return status_.listening && bridge_->state() == EngineBridge::State::Ready && bridge_->backendName() != QLatin1String("remote");
}

QString LocalServer::url() const {
    return status_.listening ? QStringLiteral("http://127.0.0.1:%1/v1").arg(status_.port) : QString();
}

QString LocalServer::status() const {
    if (!enabled_) return tr("Off");
    if (!status_.error.isEmpty()) return status_.error;
    if (!status_.listening) return tr("Starting…");
    // The URL itself is the line under this one in the view (selectable, to copy), so not repeated here.
    QString s = modelServed() ? tr("Serving %1").arg(bridge_->modelName()) : tr("Listening; answers 503 until a local model is loaded");
    s += hasApiKey() ? tr(", on this machine's other addresses too (clients send the API key):") : tr(" at:");
    return s;
}

void LocalServer::onServingChanged(const ServingStatus& status) {
    // A report from a start the user already switched off again (or the other way round) is stale.
    if (!enabled_ && status.listening) return;
    status_ = status;
    emit changed();
}

}  // namespace folio::app
