#pragma once
// The weights the CPU backend repacks at load live in one allocation, in the order a step reads
// them, on 2 MiB boundaries with transparent huge pages requested: a decode step streams nearly
// all of it, and with 4 KiB pages every page boundary costs a TLB miss and stops the hardware
// prefetchers. Slices are handed out in order, 64-byte aligned.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace folio::cpu {

class WeightArena {
public:
    // Reserves `bytes` (plus alignment); throws folio::Error when the memory is not there.
    explicit WeightArena(size_t bytes);

    // The next `bytes` of the arena, 64-byte aligned; throws folio::Error past the reserved size.
    uint8_t* take(size_t bytes);
    // Keeps the arena alive (held by every matrix packed into it).
    const std::shared_ptr<uint8_t>& storage() const { return storage_; }
    size_t size() const { return size_; }
    size_t used() const { return used_; }

    // Bytes a slice of `bytes` takes (rounded up to the 64-byte alignment).
    static size_t slice_bytes(size_t bytes) { return (bytes + 63) / 64 * 64; }

private:
    std::shared_ptr<uint8_t> storage_;
    size_t size_ = 0, used_ = 0;
};

}  // namespace folio::cpu
