#pragma once
// Who Folio is to the Hugging Face Hub and where models go: the endpoint (HF_ENDPOINT), the hub cache
// (HF_HUB_CACHE / HF_HOME), offline mode, and the access token. A token typed into the app is kept
// in settings.ini (made readable by the owner only) and wins over HF_TOKEN and the huggingface-cli
// login; it is never written to the log.
#include <QObject>
#include <QSettings>
#include <QtQml/qqmlregistration.h>

#include "engine/hub/hub_config.h"

namespace folio::app {

class HubAccount : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString endpoint READ endpoint CONSTANT)
    Q_PROPERTY(QString cacheDir READ cacheDir CONSTANT)
    Q_PROPERTY(bool offline READ offline CONSTANT)
    Q_PROPERTY(bool hasToken READ hasToken NOTIFY tokenChanged)
    // "app" (typed here), "environment" (HF_TOKEN), "login" (the huggingface-cli token file), "none".
    Q_PROPERTY(QString tokenSource READ tokenSource NOTIFY tokenChanged)
public:
    // `env`: the process environment in the app, a map in tests.
    HubAccount(const QString& settingsFile, hub::EnvLookup env, QObject* parent = nullptr);

    QString endpoint() const { return QString::fromStdString(base_.endpoint); }
    QString cacheDir() const { return QString::fromStdString(base_.cache_dir); }
    bool offline() const { return base_.offline; }
    bool hasToken() const { return !config().token.empty(); }
    QString tokenSource() const;

    // Saves the token (trimmed) for the next requests; an empty one removes it.
    Q_INVOKABLE void setToken(const QString& token);
    Q_INVOKABLE void clearToken() { setToken(QString()); }

    // The configuration a download or search runs with.
    hub::HubConfig config() const;

signals:
    void tokenChanged();

private:
    mutable QSettings settings_;
    hub::HubConfig base_;  // from the environment
};

}  // namespace folio::app
