#pragma once
// "Connect to a server" (Models page): an OpenAI-compatible endpoint (folio-server, vLLM, llama.cpp's
// server), an optional API key and a model from the server's /v1/models; chats then go there through
// engine/remote instead of a local model. Kept in settings.ini: the key readable by its owner only
// and never written to the log or shown again; and whether chats went to the server when the app
// last ran (a local model loaded since clears it), so the next start connects again.
#include <QObject>
#include <QSettings>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

#include "app/gui/models/background_task.h"

namespace folio::app {

class EngineBridge;

class RemoteConnection : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString endpoint READ endpoint WRITE setEndpoint NOTIFY changed)
    Q_PROPERTY(QString model READ model WRITE setModel NOTIFY changed)
    Q_PROPERTY(bool hasApiKey READ hasApiKey NOTIFY changed)
    Q_PROPERTY(QStringList models READ models NOTIFY changed)
    Q_PROPERTY(bool fetching READ fetching NOTIFY changed)
    Q_PROPERTY(QString error READ error NOTIFY changed)
    Q_PROPERTY(bool connected READ connected NOTIFY changed)
public:
    RemoteConnection(EngineBridge* bridge, const QString& settingsFile, QObject* parent = nullptr);

    QString endpoint() const { return endpoint_; }
    void setEndpoint(const QString& url);
    QString model() const { return model_; }
    void setModel(const QString& model);
    bool hasApiKey() const { return !apiKey_.isEmpty(); }
    // For C++ only (the monitor's /metrics requests): QML never reads the key back.
    QString apiKey() const { return apiKey_; }
    // Saves the key (trimmed; empty removes it).
    Q_INVOKABLE void setApiKey(const QString& key);
    QStringList models() const { return models_; }
    bool fetching() const { return fetching_; }
    QString error() const { return error_; }
    bool connected() const;

    // GET /v1/models off the GUI thread: fills models (and picks the first when none is chosen), or
    // error with what to fix.
    Q_INVOKABLE void fetchModels();
    // Chats go to the server from now on (the local model is unloaded).
    Q_INVOKABLE void connectToServer();
    // At start: connects again when chats went to the server when the app last ran (and the endpoint
    // and model are known); true when it did.
    bool restore();

signals:
    void changed();

private:
    EngineBridge* bridge_;
    QSettings settings_;
    QString endpoint_, model_, apiKey_;
    QStringList models_;
    bool fetching_ = false;
    QString error_;
    BackgroundTasks tasks_{this};
};

}  // namespace folio::app
