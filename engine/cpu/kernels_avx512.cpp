// The AVX-512 (F, BW, VL, DQ, VNNI) build of the kernels (see kernels_isa.h for why the pragma comes last).
#include "engine/cpu/kernels_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma,f16c")
// GCC does not update __AVX2__ and friends after the pragma in C++: the kernels test these instead.
#define FOLIO_ISA_AVX2 1
#define FOLIO_ISA_AVX512 1
#define FOLIO_KERNEL_NS avx512
#define FOLIO_KERNEL_ISA "avx512"
#include "engine/cpu/kernels_impl.inc"
#pragma GCC pop_options
