#include "app/gui/shell/qml_setup.h"

#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QQmlEngine>
#include <QQuickStyle>
#include <QtQml/QQmlExtensionPlugin>

Q_IMPORT_QML_PLUGIN(FolioPlugin)
Q_IMPORT_QML_PLUGIN(FolioUiPlugin)

namespace folio::app {

void setupQml(QQmlEngine& engine) {
    // Basic: our own Theme draws every surface, identically on every desktop.
    QQuickStyle::setStyle(QStringLiteral("Basic"));
    const QStringList families = QFontDatabase::families();
    for (const char* f : {"Inter", "Cantarell", "Noto Sans", "DejaVu Sans"}) {
        if (families.contains(QLatin1String(f))) {
            QFont font(QString::fromLatin1(f));
            font.setPointSizeF(10.5);
            QGuiApplication::setFont(font);
            break;
        }
    }
    engine.addImportPath(QStringLiteral("qrc:/qt/qml"));
}

QUrl mainQmlUrl() { return QUrl(QStringLiteral("qrc:/qt/qml/Folio/Ui/Main.qml")); }

}  // namespace folio::app
