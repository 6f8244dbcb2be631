#pragma once
// A Backend that hands every call to another one. Decorators derive from it to change one or two
// calls and keep everything else the real backend's: the benchmark's step clock (app/bench), and
// tests' backends whose forward pass throws or waits. A decorator that hooks forward() alone sees
// every step of a backend that does not sample on its device (forward_and_sample false: the CPU).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/backend.h"

namespace folio {

class WrappedBackend : public Backend {
public:
    explicit WrappedBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    std::string device_name() const override { return inner_->device_name(); }
    size_t kv_bytes_per_block(const KvLayout& l) const override { return inner_->kv_bytes_per_block(l); }
    int64_t plan_kv_blocks(const KvLayout& l, uint64_t budget, int64_t min_blocks) const override {
        return inner_->plan_kv_blocks(l, budget, min_blocks);
    }
    void allocate_kv(const KvLayout& l) override { inner_->allocate_kv(l); }
    void forward(const ForwardBatch& batch, std::vector<float>& logits) override { inner_->forward(batch, logits); }
    bool forward_and_sample(const ForwardBatch& batch, const std::vector<SamplingRow>& rows, std::vector<int32_t>& sampled) override {
        return inner_->forward_and_sample(batch, rows, sampled);
    }
    void copy_blocks(const std::vector<std::pair<int32_t, int32_t>>& src_dst) override { inner_->copy_blocks(src_dst); }
    MemoryInfo memory() const override { return inner_->memory(); }

private:
    std::unique_ptr<Backend> inner_;
};

}  // namespace folio
