#pragma once
// Helpers for kernel tests, in the SIMT harness and on a real GPU (tests/gpu builds the same files): device arrays filled from host vectors (outputs
// poisoned with NaN first, so an element a kernel forgets to write fails the comparison), random
// data, fp16 conversion and a comparison that reports the worst element.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/half.h"
#include "kernels/common/cuda_check.h"
#include "kernels/common/cuda_compat.h"

namespace folio::test {

// A cudaMalloc'd array that frees itself.
template <class T>
class DeviceArray {
public:
    DeviceArray() = default;
    explicit DeviceArray(size_t n) : n_(n) {
        cuda::check(cudaMalloc(reinterpret_cast<void**>(&p_), std::max<size_t>(n, 1) * sizeof(T)), "cudaMalloc (test)");
    }
    explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) { upload(host); }
    ~DeviceArray() {
        if (p_) cudaFree(p_);
    }
    DeviceArray(DeviceArray&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
    DeviceArray& operator=(DeviceArray&& o) noexcept {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        return *this;
    }
    void upload(const std::vector<T>& host) {
        cuda::check(cudaMemcpy(p_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
    }
    std::vector<T> download() const {
        std::vector<T> host(n_);
        cuda::check(cudaMemcpy(host.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
        return host;
    }
    // Fills every byte with 0xff: NaN as fp32 and fp16, -1 as integers.
    void poison() { cuda::check(cudaMemset(p_, 0xff, n_ * sizeof(T)), "poison"); }
    T* get() const { return p_; }
    size_t size() const { return n_; }

private:
    T* p_ = nullptr;
    size_t n_ = 0;
};

std::vector<float> random_floats(size_t n, float lo, float hi, uint64_t seed);
std::vector<int32_t> random_ints(size_t n, int lo, int hi, uint64_t seed);

std::vector<__half> to_half(const std::vector<float>& v);
std::vector<float> from_half(const std::vector<__half>& v);
// Rounds through fp16 and back: the values a kernel actually sees when its inputs are fp16.
std::vector<float> round_to_half(const std::vector<float>& v);

// Every element within atol + rtol * |expected|; NaN never passes. Reports the count and the worst.
::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<float>& expected, float atol,
                                     float rtol);

// Runs `body` once per harness schedule (forward, reverse, shuffled), restoring the default after;
// on a real GPU (tests/gpu) once, as the hardware schedules.
void for_each_schedule(const std::function<void(const char* name)>& body);

}  // namespace folio::test
