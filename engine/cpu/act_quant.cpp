#include "engine/cpu/act_quant.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <new>

#include "engine/core/thread_pool.h"
#include "engine/cpu/kernels.h"

namespace folio::cpu {

void* alloc_act_storage(size_t bytes) {
    const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw std::bad_alloc();
    return p;
}

void free_act_storage(void* p) noexcept { std::free(p); }

void quantize_acts(const float* x, int rows, int cols, int block, int parts, QuantizedActs& out, ThreadPool* pool) {
    out.rows = rows;
    out.cols = cols;
    out.block = block;
    out.parts = parts;
    out.blocks_per_row = cols / block;
    // Rows padded to a multiple of 16 (zeros) so that AMX tiles of 16 rows never read past the end.
    const size_t padded = (size_t(rows) + 15) / 16 * 16;
    const size_t bytes = padded * size_t(parts) * size_t(cols);
    if (out.q.size() < bytes) out.q.assign(bytes, 0);
    out.scale.resize(size_t(rows) * size_t(out.blocks_per_row));
    out.sum.resize(out.scale.size());
    const KernelTable& k = kernels();
    const auto rows_range = [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r)
            k.quantize_row(x + size_t(r) * cols, cols, block, parts, const_cast<int8_t*>(out.block_part(int(r), 0, 0)), parts * 16 * block, 16 * block,
                         out.scale.data() + size_t(r) * out.blocks_per_row, out.sum.data() + size_t(r) * out.blocks_per_row);
    };
    if (pool && rows > 1) pool->parallel_for(rows, 1, rows_range);
    else rows_range(0, rows);
}

}  // namespace folio::cpu
