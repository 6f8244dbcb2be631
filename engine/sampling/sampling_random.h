#pragma once
// The sampler's random number: a pure counter-based function of (seed, step), written so that a CUDA
// kernel can include this header and draw bit-identical numbers (64-bit integer ops and one exact
// multiplication by a power of two; nothing that depends on the compiler's floating-point modes).
#include <cstdint>

#if defined(__CUDACC__)
#define FOLIO_HOST_DEVICE __host__ __device__
#else
#define FOLIO_HOST_DEVICE
#endif

namespace folio {

// splitmix64's output function (Steele, Lea, Flood 2014).
FOLIO_HOST_DEVICE inline uint64_t splitmix64_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Output number step+1 of a splitmix64 generator whose state starts at mix(seed), as a double in
// [0, 1) with 53 random bits. Different seeds give unrelated sequences.
FOLIO_HOST_DEVICE inline double counter_uniform(uint64_t seed, uint64_t step) {
    constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
    const uint64_t h = splitmix64_mix(splitmix64_mix(seed) + (step + 1) * kGamma);
    return double(h >> 11) * 0x1.0p-53;
}

}  // namespace folio
