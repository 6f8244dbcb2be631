// The AVX-512 kernels plus the AMX int8 path for batches (same results bit for bit; see kernels_awq.inc).
#define FOLIO_KERNEL_NS amx
#define FOLIO_KERNEL_ISA "amx"
#include "engine/cpu/kernels_impl.inc"
