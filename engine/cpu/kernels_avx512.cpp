#define FOLIO_KERNEL_NS avx512
#define FOLIO_KERNEL_ISA "avx512"
#include "engine/cpu/kernels_impl.inc"
