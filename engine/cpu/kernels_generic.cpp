// The portable build of the kernels (any x86-64 or other CPU); the reference for the others.
#include "engine/cpu/kernels_isa.h"

#define FOLIO_KERNEL_NS generic
#define FOLIO_KERNEL_ISA "generic"
#include "engine/cpu/kernels_impl.inc"
