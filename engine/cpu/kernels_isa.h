#pragma once
// Everything the kernel bodies (kernels_impl.inc, kernels_awq.inc) may use, included by each
// kernels_<isa>.cpp BEFORE its `#pragma GCC target` region. The rules that keep AVX2/AVX-512/AMX
// instructions out of code that any CPU may run:
//  - the ISA translation units are compiled with the project's ordinary flags (no -mavx*): only the
//    functions defined after the pragma are built for the instruction set;
//  - every header is included here, before the pragma, so each inline function or template it
//    defines keeps the baseline target. When the compiler emits one of them out of line (a weak
//    symbol the linker may pick for the whole program), that copy holds baseline code only;
//  - the .inc files include nothing and put every function in an anonymous namespace: the only
//    symbol an ISA object exports is its `table`, reached only after kernels_for() checked the CPU;
//  - no static initialisers (they would run at start-up on every CPU).
// tests/engine/cpu/isa_isolation_test.cpp checks the objects for all of this.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <immintrin.h>

#include "engine/core/fp8.h"
#include "engine/core/half.h"
#include "engine/cpu/act_quant.h"
#include "engine/cpu/awq_packed.h"
#include "engine/cpu/kernels.h"
#include "engine/kv/kv_layout.h"
#include "engine/model/awq.h"
#include "engine/model/weights.h"

#if !defined(__GNUC__) || defined(__clang__)
#error "the CPU kernels rely on GCC's #pragma GCC target and vector extensions"
#endif
