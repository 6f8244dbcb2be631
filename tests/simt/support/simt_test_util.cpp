#include "support/simt_test_util.h"

#include <cmath>
#include <sstream>


namespace folio::test {

std::vector<float> random_floats(size_t n, float lo, float hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

std::vector<int32_t> random_ints(size_t n, int lo, int hi, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int32_t> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

std::vector<__half> to_half(const std::vector<float>& v) {
    std::vector<__half> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = __float2half_rn(v[i]);
    return h;
}

std::vector<float> from_half(const std::vector<__half>& v) {
    std::vector<float> f(v.size());
    for (size_t i = 0; i < v.size(); ++i) f[i] = __half2float(v[i]);
    return f;
}

std::vector<float> round_to_half(const std::vector<float>& v) { return from_half(to_half(v)); }

::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<float>& expected, float atol,
                                     float rtol) {
    if (actual.size() != expected.size())
        return ::testing::AssertionFailure() << "size " << actual.size() << " != expected " << expected.size();
    size_t bad = 0, worst = 0;
    double worst_excess = -1.0;
    for (size_t i = 0; i < actual.size(); ++i) {
        const double a = actual[i], e = expected[i];
        const double tol = atol + rtol * std::fabs(e);
        const double err = std::fabs(a - e);
        const bool ok = std::isfinite(a) == std::isfinite(e) && !(std::isnan(a)) && (err <= tol || a == e);
        if (!ok) {
            ++bad;
            const double excess = std::isnan(err) ? 1e300 : err - tol;
            if (excess > worst_excess) {
                worst_excess = excess;
                worst = i;
            }
        }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << bad << " of " << actual.size() << " elements differ; worst at index " << worst
                                         << ": got " << actual[worst] << ", expected " << expected[worst] << " (atol " << atol
                                         << ", rtol " << rtol << ")";
}

}  // namespace folio::test
