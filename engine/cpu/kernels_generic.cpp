#define FOLIO_KERNEL_NS generic
#define FOLIO_KERNEL_ISA "generic"
#include "engine/cpu/kernels_impl.inc"
