// folio: the desktop app. Parses the command line, sets up logging and the data folder, makes the
// AppController and loads the QML (ui/).
#include <QDir>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QIcon>
#include <QLockFile>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QtQml/QQmlExtensionPlugin>
#include <spdlog/spdlog.h>

#include "app/gui/shell/app_controller.h"
#include "app/gui/shell/app_options.h"
#include "app/gui/shell/log_model.h"
#include "app/gui/shell/logging.h"
#include "app/gui/shell/offline_network.h"
#include "app/gui/shell/qml_setup.h"
#include "app/gui/shell/quit_on_signal.h"

int main(int argc, char** argv) {
    // The command line first: --help, --version and bad usage are answered without a display.
    // (QStandardPaths needs the application's name before the GUI exists.)
    QCoreApplication::setApplicationName("folio");
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
    const folio::app::AppOptions options = folio::app::parseAppOptions(arguments);
    if (const int rc = folio::app::answerAppOptions(options); rc >= 0) return rc;

    QGuiApplication app(argc, argv);
    app.setApplicationName("folio");
    app.setApplicationDisplayName("Folio");
    app.setApplicationVersion(FOLIO_VERSION);
    app.setDesktopFileName("io.github.folio.Folio");
    app.setWindowIcon(QIcon(":/folio/icons/folio.svg"));
    if (!QDir().mkpath(options.dataDir)) {
        fprintf(stderr, "folio: cannot create the data folder %s\n", qPrintable(options.dataDir));
        return 1;
    }
    // One process per data folder: a second one would mark the first one's streaming replies as
    // interrupted and write the same database.
    QLockFile lock(QDir(options.dataDir).filePath("folio.lock"));
    if (!lock.tryLock(100)) {
        fprintf(stderr, "folio: another Folio is already using %s (close it, or start with --data-dir)\n",
                qPrintable(options.dataDir));
        return 1;
    }

    folio::app::LogModel log;
    const QString logFile = folio::app::setupLogging(options.dataDir, &log);
    spdlog::info("Folio {} starting; data in {}, log in {}", FOLIO_VERSION, options.dataDir.toStdString(),
                 logFile.toStdString());

    folio::app::AppController controller(options, &log);
    QQmlApplicationEngine engine;
    folio::app::OfflineNetworkFactory offline;
    engine.setNetworkAccessManagerFactory(&offline);
    folio::app::setupQml(engine);
    controller.setFileDialogProblem(folio::app::fileDialogProblem(engine));
    if (!controller.fileDialogProblem().isEmpty()) spdlog::error("{}", controller.fileDialogProblem().toStdString());
    engine.setInitialProperties({{"app", QVariant::fromValue(&controller)}});
    engine.load(folio::app::mainQmlUrl());
    if (engine.rootObjects().isEmpty()) {
        spdlog::critical("the user interface failed to load (see the messages above)");
        return 1;
    }
    folio::app::quitOnTerminationSignals(&app);
    controller.start();
    const int rc = app.exec();
    spdlog::info("Folio stopping");
    return rc;
}
