#pragma once
// The list models belong to the GUI thread: a mutation from any other thread is a bug that Qt would
// turn into rare crashes, so it stops the program at once with a message (also in release builds).
#include <QObject>
#include <QThread>

namespace folio::app {

inline void requireOwnThread(const QObject* model, const char* what) {
    if (QThread::currentThread() != model->thread()) {
        qFatal("%s called from thread %p, but %s lives on thread %p", what,
               static_cast<void*>(QThread::currentThread()), model->metaObject()->className(),
               static_cast<void*>(model->thread()));
    }
}

}  // namespace folio::app
