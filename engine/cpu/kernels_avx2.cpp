#define FOLIO_KERNEL_NS avx2
#define FOLIO_KERNEL_ISA "avx2"
#include "engine/cpu/kernels_impl.inc"
