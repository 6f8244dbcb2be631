#pragma once
// Reads a remote server's Prometheus /metrics at the monitor's rate with Qt's asynchronous network
// (nothing blocks the GUI thread; one request at a time, a slow answer skips a tick). What it reads
// goes out as a ServerLoad. A problem (no /metrics: 404, a refused key, not the format, the server
// unreachable) goes out once when it appears and is logged once, not at every tick; a 404 ends the
// polling, since that server will not grow the route.
#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include "app/gui/monitor/server_load.h"

class QNetworkReply;

namespace folio::app {

class ServerMetricsPoller : public QObject {
    Q_OBJECT
public:
    explicit ServerMetricsPoller(QObject* parent = nullptr);

    // "http://host:port/v1" (or without /v1) -> "http://host:port/metrics".
    static QUrl metricsUrl(const QString& endpoint);

    // Polls `endpoint`'s /metrics every `intervalMs`, the first at once; `apiKey` (may be empty) goes
    // as a Bearer token (folio-server asks for it on every route but /health). Replaces any earlier.
    void start(const QString& endpoint, const QString& apiKey, int intervalMs);
    void stop();
    bool polling() const { return timer_.isActive(); }
    QUrl url() const { return url_; }

signals:
    // A reading; `atMs`: when, on a steady clock (for rates between readings).
    void loadRead(const folio::app::ServerLoad& load, qint64 atMs);
    // The problem now (empty: none any more), emitted when it changes.
    void problemChanged(const QString& problem);

private:
    void poll();
    void finished(QNetworkReply* reply, quint64 session);
    void setProblem(const QString& problem);

    QNetworkAccessManager net_;
    QTimer timer_;
    QElapsedTimer clock_;
    QPointer<QNetworkReply> inFlight_;
    QUrl url_;
    QByteArray auth_;
    QString problem_;
    quint64 session_ = 0;  // a reply from before the latest start() or stop() is dropped
};

}  // namespace folio::app
