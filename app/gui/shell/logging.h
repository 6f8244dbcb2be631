#pragma once
// spdlog for the whole process (the engine logs through it too): a rotating file in the data folder,
// the console, and warnings/errors forwarded to the UI's LogModel. Qt's own messages go to spdlog.
#include <QString>

namespace folio::app {

class LogModel;

// Installs the default logger; warnings and errors also go to `ui` (by queued call, from whatever
// thread logged them) when it is given. Returns the log file path. Call once per process.
QString setupLogging(const QString& dataDir, LogModel* ui);

}  // namespace folio::app
