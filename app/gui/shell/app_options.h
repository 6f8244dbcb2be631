#pragma once
// folio [--model DIR|dummy:NAME] [--backend auto|cuda|cpu] [--data-dir DIR]
// The same conventions as every Folio executable (app/cli/command_line.h): --help / -h and --version
// on stdout with exit status 0, bad usage with the usage on stderr and exit status 2. Parsed before
// the GUI exists, so `folio --help` works without a display.
#include <QString>
#include <QStringList>

namespace folio::app {

struct AppOptions {
    QString model;             // empty: the last model, if any
    QString backend;           // empty: the remembered one ("auto" at first)
    QString dataDir;           // where history, settings and logs live
    QString error;             // set when the arguments are invalid (exit 2)
    bool help = false;         // --help / -h: print usage() and exit 0
    bool version = false;      // --version: print "folio VERSION" and exit 0
    QString usage;             // the usage text
};

// Parses the arguments (arguments[0] is the program). Needs no QCoreApplication.
AppOptions parseAppOptions(const QStringList& arguments);

// What main prints and returns for --help, --version and bad usage; -1 when the app should start.
int answerAppOptions(const AppOptions& options);

}  // namespace folio::app
