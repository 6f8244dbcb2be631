// The AVX2 + FMA + F16C build of the kernels (see kernels_isa.h for why the pragma comes last).
#include "engine/cpu/kernels_isa.h"

#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
// GCC does not update __AVX2__ and friends after the pragma in C++: the kernels test these instead.
#define FOLIO_ISA_AVX2 1
#define FOLIO_KERNEL_NS avx2
#define FOLIO_KERNEL_ISA "avx2"
#include "engine/cpu/kernels_impl.inc"
#pragma GCC pop_options
