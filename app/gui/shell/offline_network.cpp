#include "app/gui/shell/offline_network.h"

#include <QNetworkAccessManager>
#include <QNetworkRequest>

namespace folio::app {
namespace {

class OfflineNetworkAccessManager : public QNetworkAccessManager {
public:
    using QNetworkAccessManager::QNetworkAccessManager;

protected:
    QNetworkReply* createRequest(Operation op, const QNetworkRequest& request, QIODevice* data) override {
        const QString scheme = request.url().scheme();
        if (scheme == QLatin1String("file") || scheme == QLatin1String("qrc") || scheme.isEmpty()) {
            return QNetworkAccessManager::createRequest(op, request, data);
        }
        // An unsupported scheme makes Qt answer with ProtocolUnknownError without any traffic.
        QNetworkRequest blocked(request);
        QUrl url = request.url();
        url.setScheme(QStringLiteral("folio-blocked"));
        blocked.setUrl(url);
        return QNetworkAccessManager::createRequest(op, blocked, data);
    }
};

}  // namespace

QNetworkAccessManager* OfflineNetworkFactory::create(QObject* parent) { return new OfflineNetworkAccessManager(parent); }

}  // namespace folio::app
