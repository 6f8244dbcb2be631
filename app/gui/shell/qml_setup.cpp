#include "app/gui/shell/qml_setup.h"

#include <QFont>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QQmlComponent>
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

QString fileDialogProblem(QQmlEngine& engine) {
    QQmlComponent probe(&engine);
    probe.setData("import QtQml\nimport Qt.labs.folderlistmodel\nQtObject {}\n", QUrl(QStringLiteral("qrc:/folio/file-dialog-probe.qml")));
    if (probe.isReady()) return {};
    return QStringLiteral("Export, Import and \u201cOpen model folder\u2026\u201d need the QML module Qt.labs.folderlistmodel, "
                          "which is not installed (on Debian or Ubuntu: sudo apt install qml6-module-qt-labs-folderlistmodel)");
}

}  // namespace folio::app
