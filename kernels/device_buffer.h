#pragma once
// RAII owners of device and pinned host memory: every GPU allocation of the backend lives in one of
// these, so nothing leaks on an exception and nothing is freed twice.
#include <cstddef>
#include <string>
#include <utility>

#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_compat.h"

namespace folio::cuda {

inline std::string mib(size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

// A device allocation failed: the backend adds what it was loading and the sizes involved.
class DeviceOutOfMemory : public Error {
public:
    using Error::Error;
};

template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    // `what` names the buffer in the out-of-memory message.
    explicit DeviceBuffer(size_t count, const char* what = "buffer") : count_(count) {
        if (count == 0) return;
        const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
        if (e != cudaSuccess) {
            ptr_ = nullptr;
            cudaGetLastError();
            const std::string msg = std::string("CUDA: cannot allocate ") + mib(count * sizeof(T)) + " for " + what + " (" +
                                    cudaGetErrorString(e) + ")";
            if (e == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(msg);
            throw Error(msg);
        }
    }
    ~DeviceBuffer() { reset(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            reset();
            ptr_ = std::exchange(o.ptr_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    void reset() {
        if (ptr_) cudaFree(ptr_);
        ptr_ = nullptr;
        count_ = 0;
    }
    T* get() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// Page-locked host memory: the only kind cudaMemcpyAsync copies without a hidden synchronisation,
// and what captured graphs copy to and from.
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(size_t count) : count_(count) {
        if (count == 0) return;
        check(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)), "cudaMallocHost");
    }
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        return *this;
    }
    T* get() const { return ptr_; }
    T& operator[](size_t i) const { return ptr_[i]; }
    size_t size() const { return count_; }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// A stream owned by the backend.
class Stream {
public:
    Stream() { check(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
    ~Stream() {
        if (s_) cudaStreamDestroy(s_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

// An event owned by the backend (no timing).
class Event {
public:
    Event() { check(cudaEventCreate(&e_), "cudaEventCreate"); }
    ~Event() {
        if (e_) cudaEventDestroy(e_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

}  // namespace folio::cuda
