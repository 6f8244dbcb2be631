// NOT part of the engine: the mistake kernels_isa.h forbids, compiled on purpose (with -mavx512f on
// the command line, as the kernels once were) so that isa_isolation_test can show that it catches
// it. Never linked into anything.
#include <vector>

// An inline function compiled for AVX-512 and emitted out of line: a weak symbol the linker could
// pick for every caller in the program, on any CPU.
inline __attribute__((noinline)) float leaky_sum_of_squares(const std::vector<float>& v) {
    float s = 0.0f;
    for (float x : v) s += x * x;
    return s;
}

float isa_leak_sample(const std::vector<float>& v) { return leaky_sum_of_squares(v); }
