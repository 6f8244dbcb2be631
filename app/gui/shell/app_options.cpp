#include "app/gui/shell/app_options.h"

#include <QCommandLineParser>
#include <QStandardPaths>
#include <cstdio>

namespace folio::app {

AppOptions parseAppOptions(const QStringList& arguments) {
    QCommandLineParser p;
    p.setApplicationDescription("Folio: chat with local language models.");
    const QCommandLineOption help({"h", "help"}, "Show this help and exit.");
    const QCommandLineOption version("version", "Show the version and exit.");
    const QCommandLineOption model("model", "Model to load: a Hugging Face folder or dummy:NAME (e.g. dummy:tiny).", "DIR|dummy:NAME");
    const QCommandLineOption backend("backend", "Compute backend: auto (CUDA when a GPU and the CUDA module are present), cuda or cpu.", "auto|cuda|cpu");
    const QCommandLineOption dataDir("data-dir", "Folder for history, settings and logs (default ~/.local/share/folio).", "DIR");
    p.addOptions({help, version, model, backend, dataDir});
    // Qt's own options (-platform offscreen, -style, -reverse ...) are parsed before the GUI exists
    // too, and QGuiApplication takes them out later: accept them here without listing them.
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    for (const char* name : {"platform", "platformpluginpath", "platformtheme", "plugin", "qwindowgeometry", "qwindowicon",
                             "qwindowtitle", "display", "geometry", "style", "stylesheet", "session", "qmljsdebugger"}) {
        QCommandLineOption qt(name, QString(), "value");
        qt.setFlags(QCommandLineOption::HiddenFromHelp);
        p.addOption(qt);
    }
    for (const char* name : {"reverse", "nograb", "dograb", "sync", "widgetcount"}) {
        QCommandLineOption qt(name);
        qt.setFlags(QCommandLineOption::HiddenFromHelp);
        p.addOption(qt);
    }
    AppOptions o;
    // Qt writes "<executable_name>" when no QCoreApplication exists yet; the program is named here.
    o.usage = p.helpText().replace("<executable_name>", "folio").replace("Usage: ", "usage: ");
    o.usage += "\nexit status: 0 closed normally, 1 could not start (the message says why), 2 bad usage\n";
    if (!p.parse(arguments)) {
        o.error = p.errorText();
        return o;
    }
    if (p.isSet(help)) {
        o.help = true;
        return o;
    }
    if (p.isSet(version)) {
        o.version = true;
        return o;
    }
    if (!p.positionalArguments().isEmpty()) {
        o.error = QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().constFirst());
        return o;
    }
    o.model = p.value(model);
    o.backend = p.value(backend);
    if (!o.backend.isEmpty() && o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda") {
        o.error = QStringLiteral("--backend must be auto, cuda or cpu (got \"%1\")").arg(o.backend);
    }
    o.dataDir = p.isSet(dataDir) ? p.value(dataDir) : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return o;
}

int answerAppOptions(const AppOptions& o) {
    if (o.help) {
        std::fputs(qPrintable(o.usage), stdout);
        return 0;
    }
    if (o.version) {
        std::printf("folio %s\n", FOLIO_VERSION);
        return 0;
    }
    if (!o.error.isEmpty()) {
        std::fprintf(stderr, "folio: %s\n\n%s", qPrintable(o.error), qPrintable(o.usage));
        return 2;
    }
    return -1;
}

}  // namespace folio::app
