#pragma once
// folio [--model DIR|dummy:NAME] [--backend auto|cuda|cpu] [--data-dir DIR]
#include <QString>
#include <QStringList>

namespace folio::app {

struct AppOptions {
    QString model;             // empty: the last model, if any
    QString backend;           // empty: the remembered one ("auto" at first)
    QString dataDir;           // where history, settings and logs live
    QString error;             // set when the arguments are invalid
};

// Parses the arguments (after QGuiApplication exists; --help and --version exit).
AppOptions parseAppOptions(const QStringList& arguments);

}  // namespace folio::app
