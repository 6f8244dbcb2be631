#include "app/gui/models/hub_account.h"

#include <QFile>

namespace folio::app {

HubAccount::HubAccount(const QString& settingsFile, hub::EnvLookup env, QObject* parent)
    : QObject(parent), settings_(settingsFile, QSettings::IniFormat), base_(hub::hub_config_from_env(env)) {}

QString HubAccount::tokenSource() const {
    if (!settings_.value("hub/token").toString().isEmpty()) return QStringLiteral("app");
    if (base_.token.empty()) return QStringLiteral("none");
    // hub_config_from_env took it from HF_TOKEN or from the login file; tell which for the page.
    return qEnvironmentVariableIsEmpty("HF_TOKEN") && qEnvironmentVariableIsEmpty("HUGGING_FACE_HUB_TOKEN")
               ? QStringLiteral("login")
               : QStringLiteral("environment");
}

void HubAccount::setToken(const QString& token) {
    const QString t = token.trimmed();
    if (t.isEmpty()) settings_.remove("hub/token");
    else settings_.setValue("hub/token", t);
    settings_.sync();
    // The file now holds a secret: the owner alone may read it.
    QFile::setPermissions(settings_.fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    emit tokenChanged();
}

hub::HubConfig HubAccount::config() const {
    hub::HubConfig c = base_;
    const QString t = settings_.value("hub/token").toString();
    if (!t.isEmpty()) c.token = t.toStdString();
    return c;
}

}  // namespace folio::app
