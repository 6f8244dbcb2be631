#pragma once
// Where replies come from, as the GUI thread sees it: submit a request, get its text in chunks and
// then its end, all as signals on this object's (GUI) thread. EngineBridge is the implementation;
// the interface keeps the chat models independent of how the engine is reached.
#include <QObject>

#include "app/gui/bridge/bridge_types.h"

namespace folio::app {

class ReplySource : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // Returns the ticket that identifies the reply in delta/finished. A request with n > 1 has n
    // replies (drafts): each delta and finished names its draft, and each draft ends once.
    virtual quint64 submit(GenerationRequest request) = 0;
    // Asks for the reply to stop; a finished() for it may still follow (callers that already moved
    // on ignore it).
    virtual void cancel(quint64 ticket) = 0;

signals:
    void delta(quint64 ticket, const QString& text, int tokens, int draft);
    void finished(const folio::app::GenerationEnd& end);
};

}  // namespace folio::app
