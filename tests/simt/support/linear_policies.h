#pragma once
// The CUDA backend's two linear policies for end-to-end tests. A backend reads its debug switches
// (LinearPolicy::from_environment) when it is made, so a test picks a policy by setting them for
// the scope in which it makes backends. The default needs nothing: it is the GPU's own policy.
#include <cstdlib>
#include <string>

namespace folio::test {

// Sets an environment variable for a scope; the previous value (or its absence) comes back after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) {
            had_ = true;
            old_ = old;
        }
        setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_)
            setenv(name_, old_.c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    bool had_ = false;
    std::string old_;
};

// The other policy: no cuBLAS; dense_gemv / gemm_mma_dense and awq_gemv / gemm_mma_awq only.
struct HandWrittenKernelsOnly {
    ScopedEnv cublas{"FOLIO_CUDA_CUBLAS", "0"};
    ScopedEnv dequant{"FOLIO_AWQ_DEQUANT_MIN_ROWS", "0"};
};

}  // namespace folio::test
