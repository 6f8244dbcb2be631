// The AVX-512 kernels plus the AMX int8 path for batches (same results bit for bit; see
// kernels_awq.inc); kernels_isa.h says why the pragma comes last.
#include "engine/cpu/kernels_isa.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma,f16c,amx-tile,amx-int8")
// GCC does not update __AVX2__ and friends after the pragma in C++: the kernels test these instead.
#define FOLIO_ISA_AVX2 1
#define FOLIO_ISA_AVX512 1
#define FOLIO_ISA_AMX 1
#define FOLIO_KERNEL_NS amx
#define FOLIO_KERNEL_ISA "amx"
#include "engine/cpu/kernels_impl.inc"
#pragma GCC pop_options
