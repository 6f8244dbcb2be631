#include "app/gui/shell/app_options.h"

#include <QCommandLineParser>
#include <QStandardPaths>

namespace folio::app {

AppOptions parseAppOptions(const QStringList& arguments) {
    QCommandLineParser p;
    p.setApplicationDescription("Folio: chat with local language models");
    p.addHelpOption();
    p.addVersionOption();
    const QCommandLineOption model("model", "Model to load: a Hugging Face folder or dummy:NAME (e.g. dummy:tiny).", "DIR|dummy:NAME");
    const QCommandLineOption backend("backend", "Compute backend: auto (CUDA when a GPU is present), cuda or cpu.", "auto|cuda|cpu");
    const QCommandLineOption dataDir("data-dir", "Folder for history, settings and logs.", "DIR");
    p.addOptions({model, backend, dataDir});
    p.process(arguments);
    AppOptions o;
    o.model = p.value(model);
    o.backend = p.value(backend);
    if (!o.backend.isEmpty() && o.backend != "auto" && o.backend != "cpu" && o.backend != "cuda") {
        o.error = QStringLiteral("--backend must be auto, cuda or cpu (got \"%1\")").arg(o.backend);
    }
    o.dataDir = p.isSet(dataDir) ? p.value(dataDir) : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return o;
}

}  // namespace folio::app
