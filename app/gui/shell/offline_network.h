#pragma once
// QML gets a network manager that answers every request that is not a local file or resource with
// an error: a reply can never make the app fetch a remote image (or anything else).
#include <QQmlNetworkAccessManagerFactory>

namespace folio::app {

class OfflineNetworkFactory : public QQmlNetworkAccessManagerFactory {
public:
    QNetworkAccessManager* create(QObject* parent) override;
};

}  // namespace folio::app
