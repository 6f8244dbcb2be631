#pragma once
// A backend that stops the engine mid-request on purpose: tests that must observe a request while it
// is certainly still running (server metrics, a model withdrawn under an API request) hold one
// forward pass until they let it go.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/backend/wrapped_backend.h"

namespace folio {

// The CPU backend, except that forward pass number `hold_at` (counting from 1) waits for release().
class HeldBackend : public WrappedBackend {
public:
    HeldBackend(std::unique_ptr<Backend> inner, int hold_at) : WrappedBackend(std::move(inner)), hold_at_(hold_at) {}
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override {
        if (++forwards_ == hold_at_) {
            std::unique_lock lock(mutex_);
            held_ = true;
            cv_.notify_all();
            cv_.wait(lock, [&] { return released_; });
        }
        WrappedBackend::forward(batch, logits);
    }
    void wait_until_held() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return held_; });
    }
    void release() {
        std::lock_guard lock(mutex_);
        released_ = true;
        cv_.notify_all();
    }

private:
    int hold_at_;
    int forwards_ = 0;  // the engine's step thread alone calls forward()
    std::mutex mutex_;
    std::condition_variable cv_;
    bool held_ = false, released_ = false;
};

}  // namespace folio
