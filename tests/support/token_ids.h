#pragma once
// Token ids for KV and scheduler tests, where only their identity matters (the prefix cache hashes them).
#include <cstdint>
#include <numeric>
#include <vector>

namespace folio::test {

// n consecutive ids starting at `first`: distinct runs give distinct blocks, equal runs shared ones.
inline std::vector<int32_t> toks(int first, int n) {
    std::vector<int32_t> t(static_cast<size_t>(n));
    std::iota(t.begin(), t.end(), first);
    return t;
}

}  // namespace folio::test
