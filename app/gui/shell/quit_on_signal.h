#pragma once
// SIGINT/SIGTERM end the app through the event loop (not mid-write), so replies still streaming are
// saved as interrupted and the journal is flushed, as on a normal quit.
class QObject;

namespace folio::app {

// Installs the handlers; the returned object (parented to `parent`) owns the notifier.
void quitOnTerminationSignals(QObject* parent);

}  // namespace folio::app
