#pragma once
// QML's view of a remote server's load as its /metrics told it (server_load.h), with the token
// throughput between the last two readings. A figure the server does not publish reads -1.
#include <QObject>
#include <QString>
#include <QtQml/qqmlregistration.h>

#include "app/gui/monitor/server_load.h"

namespace folio::app {

class ServerLoadView {
    Q_GADGET
    QML_VALUE_TYPE(serverLoad)
    Q_PROPERTY(bool known READ known CONSTANT)  // a reading has come
    Q_PROPERTY(QString flavour READ flavour CONSTANT)  // "vllm", "folio"
    Q_PROPERTY(double running READ running CONSTANT)
    Q_PROPERTY(double waiting READ waiting CONSTANT)
    Q_PROPERTY(double kvUsage READ kvUsage CONSTANT)              // 0..1
    Q_PROPERTY(double prefixHitRate READ prefixHitRate CONSTANT)  // 0..1
    Q_PROPERTY(double generationTokS READ generationTokS CONSTANT)
    Q_PROPERTY(double promptTokS READ promptTokS CONSTANT)
public:
    ServerLoadView() = default;
    ServerLoadView(ServerLoad load, ServerThroughput rates) : load_(std::move(load)), rates_(rates), known_(true) {}
    const ServerLoad& load() const { return load_; }
    bool known() const { return known_; }
    QString flavour() const { return QString::fromStdString(load_.flavour); }
    double running() const { return or_unknown(load_.running); }
    double waiting() const { return or_unknown(load_.waiting); }
    double kvUsage() const { return or_unknown(load_.kv_usage); }
    double prefixHitRate() const { return or_unknown(load_.prefix_hit_rate()); }
    double generationTokS() const { return or_unknown(rates_.generation_tok_s); }
    double promptTokS() const { return or_unknown(rates_.prompt_tok_s); }

private:
    static double or_unknown(const std::optional<double>& v) { return v ? *v : -1.0; }
    ServerLoad load_;
    ServerThroughput rates_;
    bool known_ = false;
};

}  // namespace folio::app
