#pragma once
// Work that must not block the GUI thread (a Hub search, reading the GPU's memory, scanning the
// cache) runs on a thread of its own and hands its result back on the owner's thread. The owner may
// be destroyed first: the result is then dropped, never delivered to a dead object.
#include <QMetaObject>
#include <QObject>

#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace folio::app {

class BackgroundTasks {
public:
    explicit BackgroundTasks(QObject* owner) : state_(std::make_shared<State>()) { state_->owner = owner; }
    ~BackgroundTasks() {
        std::lock_guard<std::mutex> g(state_->m);
        state_->owner = nullptr;
    }
    BackgroundTasks(const BackgroundTasks&) = delete;
    BackgroundTasks& operator=(const BackgroundTasks&) = delete;

    // work() runs on a new thread; done(result) runs later on the owner's thread.
    template <typename Work, typename Done>
    void run(Work work, Done done) {
        std::thread([state = state_, work = std::move(work), done = std::move(done)]() mutable {
            auto result = work();
            std::lock_guard<std::mutex> g(state->m);
            // Posting to a live object is thread-safe; if it is deleted before the event is handled,
            // Qt discards the event.
            if (state->owner)
                QMetaObject::invokeMethod(
                    state->owner, [done = std::move(done), result = std::move(result)]() mutable { done(std::move(result)); },
                    Qt::QueuedConnection);
        }).detach();
    }

private:
    struct State {
        std::mutex m;
        QObject* owner = nullptr;
    };
    std::shared_ptr<State> state_;
};

}  // namespace folio::app
