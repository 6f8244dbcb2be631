#pragma once
// Warnings and errors for the UI: the engine's (through spdlog) and the app's own. The newest one is
// shown as a banner; the monitor lists the last 200.
#include <QAbstractListModel>
#include <QDateTime>
#include <QtQml/qqmlregistration.h>

namespace folio::app {

class LogModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    QML_UNCREATABLE("made by the app")
    Q_PROPERTY(QString latest READ latest NOTIFY latestChanged)
    Q_PROPERTY(QString latestLevel READ latestLevel NOTIFY latestChanged)
    Q_PROPERTY(int count READ rowCount NOTIFY latestChanged)
public:
    enum Role { LevelRole = Qt::UserRole + 1, TextRole, TimeRole };
    using QAbstractListModel::QAbstractListModel;
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    QString latest() const { return latest_; }
    QString latestLevel() const { return latestLevel_; }
    // GUI thread only (the spdlog sink posts here by queued call).
    Q_INVOKABLE void add(const QString& level, const QString& text);
    Q_INVOKABLE void dismissLatest();

signals:
    void latestChanged();

private:
    struct Entry {
        QString level, text;
        QDateTime time;
    };
    QList<Entry> entries_;
    QString latest_, latestLevel_;
};

}  // namespace folio::app
