#pragma once
// The model picker's memory: the last model (loaded again at start), recently used models, and the
// demo entries a newcomer can try at once. Kept in settings.ini in the data folder.
#include <QObject>
#include <QSettings>
#include <QStringList>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class ModelLibrary : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QStringList recentModels READ recentModels NOTIFY changed)
    Q_PROPERTY(QString lastModel READ lastModel NOTIFY changed)
    Q_PROPERTY(QStringList demoModels READ demoModels CONSTANT)
    Q_PROPERTY(QString backend READ backend WRITE setBackend NOTIFY changed)
    // Model options applied when a model loads: FP8 weights at load ("none", "fp8") and the KV
    // cache's element type ("auto", "fp8", "fp8_e5m2").
    Q_PROPERTY(QString quantization READ quantization WRITE setQuantization NOTIFY changed)
    Q_PROPERTY(QString kvCacheDtype READ kvCacheDtype WRITE setKvCacheDtype NOTIFY changed)
public:
    explicit ModelLibrary(const QString& settingsFile, QObject* parent = nullptr);

    QStringList recentModels() const;
    QString lastModel() const;
    QStringList demoModels() const { return {QStringLiteral("dummy:tiny")}; }
    QString backend() const;
    void setBackend(const QString& b);
    QString quantization() const;
    void setQuantization(const QString& q);
    QString kvCacheDtype() const;
    void setKvCacheDtype(const QString& d);

    // Called when a model loaded: becomes the last model and moves to the top of the recent list.
    Q_INVOKABLE void remember(const QString& spec);
    Q_INVOKABLE void forget(const QString& spec);
    // A quick check before the engine loads a folder: empty when it looks like a checkpoint, else
    // what is missing. The engine's own error (shown after loading) is the final word.
    Q_INVOKABLE QString folderProblem(const QString& path) const;
    // "file:///x/y" -> "/x/y" for folder dialogs.
    Q_INVOKABLE QString localPath(const QUrl& url) const;
    Q_INVOKABLE QString displayName(const QString& spec) const;

signals:
    void changed();

private:
    mutable QSettings settings_;
};

}  // namespace folio::app
