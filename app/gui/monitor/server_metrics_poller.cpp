#include "app/gui/monitor/server_metrics_poller.h"

#include <QNetworkReply>
#include <QNetworkRequest>
#include <spdlog/spdlog.h>

namespace folio::app {

ServerMetricsPoller::ServerMetricsPoller(QObject* parent) : QObject(parent) {
    clock_.start();
    connect(&timer_, &QTimer::timeout, this, &ServerMetricsPoller::poll);
}

QUrl ServerMetricsPoller::metricsUrl(const QString& endpoint) {
    QUrl u(endpoint.trimmed());
    QString path = u.path();
    while (path.endsWith('/')) path.chop(1);
    if (path.endsWith(QLatin1String("/v1"))) path.chop(3);
    u.setPath(path + QStringLiteral("/metrics"));
    u.setQuery(QString());
    u.setFragment(QString());
    return u;
}

void ServerMetricsPoller::start(const QString& endpoint, const QString& apiKey, int intervalMs) {
    stop();
    url_ = metricsUrl(endpoint);
    auth_ = apiKey.isEmpty() ? QByteArray() : "Bearer " + apiKey.toUtf8();
    problem_.clear();
    timer_.start(intervalMs);
    poll();
}

void ServerMetricsPoller::stop() {
    ++session_;
    timer_.stop();
    if (inFlight_) inFlight_->abort();
    inFlight_ = nullptr;
}

void ServerMetricsPoller::poll() {
    if (inFlight_) return;  // the last one is still out: skip this tick
    QNetworkRequest req(url_);
    if (!auth_.isEmpty()) req.setRawHeader("Authorization", auth_);
    req.setTransferTimeout(5000);
    QNetworkReply* reply = net_.get(req);
    inFlight_ = reply;
    const quint64 session = session_;
    connect(reply, &QNetworkReply::finished, this, [this, reply, session] { finished(reply, session); });
}

void ServerMetricsPoller::finished(QNetworkReply* reply, quint64 session) {
    reply->deleteLater();
    if (session != session_) return;
    inFlight_ = nullptr;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString where = url_.toString(QUrl::RemoveUserInfo);
    if (status == 404) {
        timer_.stop();
        setProblem(tr("%1 answers 404: this server does not publish Prometheus metrics, so the monitor cannot show its load").arg(where));
        return;
    }
    if (status == 401 || status == 403) {
        setProblem(tr("%1 refused the API key (HTTP %2): check the key under Connect to a server").arg(where).arg(status));
        return;
    }
    if (reply->error() != QNetworkReply::NoError || status != 200) {
        setProblem(tr("cannot read %1: %2").arg(where, status ? tr("HTTP %1").arg(status) : reply->errorString()));
        return;
    }
    ServerLoad load;
    try {
        load = read_server_load(parse_metrics_text(reply->readAll().toStdString()));
    } catch (const MetricsParseError& e) {
        setProblem(tr("%1 is not in the Prometheus text format: %2").arg(where, QString::fromStdString(e.what())));
        return;
    }
    if (load.flavour.empty()) {
        setProblem(tr("%1 has neither vLLM's (vllm:) nor Folio's (folio:) metrics: the monitor cannot read this server's load").arg(where));
        return;
    }
    setProblem({});
    emit loadRead(load, clock_.elapsed());
}

void ServerMetricsPoller::setProblem(const QString& problem) {
    if (problem == problem_) return;
    problem_ = problem;
    if (!problem.isEmpty()) spdlog::warn("monitor: {}", problem.toStdString());
    emit problemChanged(problem);
}

}  // namespace folio::app
