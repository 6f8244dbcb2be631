#pragma once
// This machine's memory bandwidth, measured in the same run as the model figures so that their
// ratio means something on a noisy shared machine.
#include <cstddef>

namespace folio {
class ThreadPool;
}

namespace folio::bench {

class MemoryBandwidth {
public:
    // Allocates and touches `bytes` for the read test and twice bytes/2 for the copy test.
    MemoryBandwidth(size_t bytes, ThreadPool& pool);
    ~MemoryBandwidth();
    MemoryBandwidth(const MemoryBandwidth&) = delete;
    MemoryBandwidth& operator=(const MemoryBandwidth&) = delete;

    // GB/s (1e9 bytes) of a sum-reduction over the whole buffer, every thread of the pool summing
    // its own slice: the rate a decode step can read weights at.
    double read_gbps();
    // GB/s of bytes copied (each byte is read once and written once) with every thread.
    double copy_gbps();

private:
    size_t bytes_;
    ThreadPool& pool_;
    unsigned char* read_buf_ = nullptr;
    unsigned char* src_ = nullptr;
    unsigned char* dst_ = nullptr;
};

}  // namespace folio::bench
