#pragma once
// "Serve on localhost" as the views see it: the switch, the port, an optional API key, and what the
// server does (its URL, or why it cannot listen). The serving itself runs beside the engine on the
// worker thread (LocalApiServer); this keeps the settings (settings.ini, the key readable by its
// owner only and never logged) and follows the worker's reports. The switch is kept too: switched on
// when the app last ran, it turns on again once a local model has loaded (not before, and not for a
// remote server, which leaves no engine to lend).
#include <QObject>
#include <QSettings>
#include <QtQml/qqmlregistration.h>

#include "app/gui/bridge/bridge_types.h"

namespace folio::app {

class EngineBridge;

class LocalServer : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(bool enabled READ enabled WRITE setEnabled NOTIFY changed)
    Q_PROPERTY(int port READ port WRITE setPort NOTIFY changed)
    Q_PROPERTY(bool hasApiKey READ hasApiKey NOTIFY changed)
    Q_PROPERTY(bool listening READ listening NOTIFY changed)
    Q_PROPERTY(bool modelServed READ modelServed NOTIFY changed)
    Q_PROPERTY(QString url READ url NOTIFY changed)
    Q_PROPERTY(QString status READ status NOTIFY changed)
    Q_PROPERTY(QString error READ error NOTIFY changed)
public:
    static constexpr int kDefaultPort = 8080;
    LocalServer(EngineBridge* bridge, const QString& settingsFile, QObject* parent = nullptr);

    bool enabled() const { return enabled_; }
    // On: listens (127.0.0.1 without a key); off: stops, cancelling the API requests in flight.
    // Remembered for the next start.
    void setEnabled(bool on);
    // The switch was on when the app last ran and waits for a local model to turn on again.
    bool restorePending() const { return restorePending_; }
    int port() const { return port_; }
    // 1..65535, or 0 for any free port (tests). Restarts the server when it is on.
    void setPort(int port);
    bool hasApiKey() const { return !apiKey_.isEmpty(); }
    // Saves the key (trimmed; empty removes it). With a key the server listens on every address and
    // clients must send "Authorization: Bearer KEY". Restarts the server when it is on.
    Q_INVOKABLE void setApiKey(const QString& key);
    bool listening() const { return status_.listening; }
    bool modelServed() const;
    QString url() const;     // "http://127.0.0.1:PORT/v1" while listening
    QString status() const;  // one line for the view
    QString error() const { return status_.error; }
    int boundPort() const { return status_.port; }

signals:
    void changed();

private:
    void restart();
    void onServingChanged(const ServingStatus& status);
    void restoreOnceLoaded();

    EngineBridge* bridge_;
    QSettings settings_;
    bool enabled_ = false;
    bool restorePending_ = false;
    int port_ = kDefaultPort;
    QString apiKey_;
    ServingStatus status_;
};

}  // namespace folio::app
