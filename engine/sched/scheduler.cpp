#include "engine/sched/scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "engine/core/error.h"

namespace folio {

Scheduler::Scheduler(const SchedulerConfig& config)
    : config_(config), kv_(config.num_blocks, config.block_size, config.enable_prefix_caching, config.sliding_window) {
    if (config.max_num_seqs < 1) throw Error("max_num_seqs must be at least 1");
    if (config.max_num_batched_tokens < config.max_num_seqs)
        throw Error("max_num_batched_tokens (" + std::to_string(config.max_num_batched_tokens) +
                    ") must be at least max_num_seqs (" + std::to_string(config.max_num_seqs) +
                    "): every running sequence needs one token of the budget per step");
    if (config.max_model_len < 1) throw Error("the model's context length must be positive");
    if (config.num_blocks < 1) throw Error("the KV pool needs at least one block");
    if (config.block_size < 1) throw Error("the KV block size must be positive");
    if (config.sliding_window < 0) throw Error("the sliding window must not be negative (0: none)");
    if (config.static_batching && config.static_batch_size < 1) throw Error("static_batch_size must be at least 1");
    config_.static_batch_size = std::min(config_.static_batch_size, config_.max_num_seqs);
}

std::string Scheduler::check_prompt(int64_t num_tokens) const {
    if (num_tokens <= 0) return "the prompt is empty";
    if (num_tokens > config_.max_model_len)
        return "the prompt has " + std::to_string(num_tokens) + " tokens but the model's context holds " +
               std::to_string(config_.max_model_len) + "; shorten the prompt or the conversation";
    const int64_t blocks = kv_.blocks_to_run(num_tokens);
    if (blocks > kv_.num_blocks())
        return "the prompt has " + std::to_string(num_tokens) + " tokens, which need " + std::to_string(blocks) +
               " KV blocks of " + std::to_string(kv_.block_size()) + " tokens, but the whole KV pool holds " +
               std::to_string(kv_.num_blocks()) + " blocks; give the KV cache more memory or shorten the prompt";
    return {};
}

void Scheduler::add(SeqId id, std::vector<int32_t> prompt, int priority) {
    if (const std::string why = check_prompt(int64_t(prompt.size())); !why.empty()) throw Error(why);
    if (seqs_.count(id)) throw Error("request id " + std::to_string(id) + " is already queued");
    SchedSequence s;
    s.id = id;
    s.num_prompt_tokens = int(prompt.size());
    s.tokens = std::move(prompt);
    s.priority = priority;
    s.arrival = next_arrival_++;
    waiting_.insert(wait_key(s));
    seqs_.emplace(id, std::move(s));
    ++version_;
}

void Scheduler::fork(SeqId parent, SeqId child) {
    const auto it = seqs_.find(parent);
    if (it == seqs_.end()) throw Error("cannot fork request " + std::to_string(parent) + ": it is not active");
    if (seqs_.count(child)) throw Error("cannot fork into request id " + std::to_string(child) + ": it is taken");
    SchedSequence c = it->second;
    c.id = child;
    c.arrival = next_arrival_++;
    c.preemptions = 0;
    if (c.running) {
        kv_.fork(parent, child);
        c.admission = next_admission_++;
        running_.push_back(child);
    } else {
        c.num_computed = 0;
        waiting_.insert(wait_key(c));
    }
    if (static_members_.count(parent)) static_members_.insert(child);
    seqs_.emplace(child, std::move(c));
    ++version_;
}

void Scheduler::fork_replacing_last(SeqId parent, SeqId child, int32_t last_token) {
    const auto it = seqs_.find(parent);
    if (it == seqs_.end() || it->second.tokens.empty() || it->second.num_computed >= int(it->second.tokens.size()))
        throw std::logic_error("Scheduler::fork_replacing_last: the parent's last token is not a fresh sample");
    fork(parent, child);
    seqs_.at(child).tokens.back() = last_token;
}

void Scheduler::remove(SeqId id) {
    const auto it = seqs_.find(id);
    if (it == seqs_.end()) return;
    if (it->second.running) {
        running_.erase(std::find(running_.begin(), running_.end(), id));
        kv_.free(id);
    } else {
        waiting_.erase(wait_key(it->second));
    }
    static_members_.erase(id);
    seqs_.erase(it);
    ++version_;
}

const SchedSequence* Scheduler::find(SeqId id) const {
    const auto it = seqs_.find(id);
    return it == seqs_.end() ? nullptr : &it->second;
}

std::vector<SeqId> Scheduler::waiting() const {
    std::vector<SeqId> out;
    out.reserve(waiting_.size());
    for (const auto& k : waiting_) out.push_back(std::get<2>(k));
    return out;
}

// ---------------------------------------------------------------- prepare

SchedulePlan Scheduler::schedule() const {
    SchedulePlan plan;
    plan.version = version_;
    plan.kv = kv_.plan();
    std::vector<SeqId> kept;
    std::vector<int> min_need;
    plan_kv_guarantee(plan, kept, min_need);
    int budget = config_.max_num_batched_tokens;
    plan_running(plan, kept, min_need, budget);
    // After a preemption the pool is known to be short: admit nothing (as vLLM does), so the
    // preempted request is not overtaken by one that arrived after it.
    if (plan.preempted.empty()) plan_waiting(plan, int(kept.size()), budget);
    plan.num_tokens = config_.max_num_batched_tokens - budget;
    return plan;
}

void Scheduler::plan_kv_guarantee(SchedulePlan& plan, std::vector<SeqId>& kept, std::vector<int>& min_need) const {
    std::vector<SeqId> alive = running_;  // oldest admission first
    int64_t reserved = 0;
    size_t i = 0;
    while (i < alive.size()) {
        const SchedSequence& s = seqs_.at(alive[i]);
        if (kv_.blocks_to_run(int64_t(s.tokens.size())) > kv_.num_blocks()) {
            plan.out_of_memory.push_back(s.id);
            plan.kv.release(s.id);
            alive.erase(alive.begin() + ptrdiff_t(i));
            continue;
        }
        int need = plan.kv.blocks_needed(s.id, 1);
        bool preempted_self = false;
        while (reserved + need > plan.kv.free_blocks()) {
            // The victim: lowest priority, then most recently admitted, among this one and newer.
            size_t v = i;
            for (size_t j = i + 1; j < alive.size(); ++j) {
                const SchedSequence& c = seqs_.at(alive[j]);
                const SchedSequence& b = seqs_.at(alive[v]);
                if (c.priority < b.priority || (c.priority == b.priority && c.admission > b.admission)) v = j;
            }
            plan.kv.release(alive[v]);
            plan.preempted.push_back(alive[v]);
            alive.erase(alive.begin() + ptrdiff_t(v));
            if (v == i) {
                preempted_self = true;
                break;
            }
            need = plan.kv.blocks_needed(s.id, 1);  // a release may have ended a copy-on-write
        }
        if (preempted_self) continue;
        reserved += need;
        kept.push_back(s.id);
        min_need.push_back(need);
        ++i;
    }
}

void Scheduler::plan_running(SchedulePlan& plan, const std::vector<SeqId>& kept, const std::vector<int>& min_need,
                             int& budget) const {
    auto push = [&](const SchedSequence& s, int n) {
        ScheduledChunk c;
        c.id = s.id;
        c.context_before = s.num_computed;
        c.num_tokens = n;
        c.samples = s.num_computed + n == int(s.tokens.size());
        c.prefill = s.num_computed < s.admitted_len;
        plan.chunks.push_back(c);
        budget -= n;
    };
    // Decodes (and one-token prefill tails) first: the budget always covers them (>= max_num_seqs).
    int64_t pending = 0;  // minimum blocks still promised to prefills not planned yet
    for (size_t k = 0; k < kept.size(); ++k) {
        const SchedSequence& s = seqs_.at(kept[k]);
        if (s.num_uncomputed() != 1) {
            pending += min_need[k];
            continue;
        }
        if (!plan.kv.reserve(s.id, 1)) throw std::logic_error("Scheduler: a guaranteed decode did not fit");
        push(s, 1);
    }
    for (size_t k = 0; k < kept.size(); ++k) {
        const SchedSequence& s = seqs_.at(kept[k]);
        if (s.num_uncomputed() == 1) continue;
        pending -= min_need[k];
        if (budget <= 0) continue;
        int n = std::min(s.num_uncomputed(), budget);
        n = plan.kv.max_tokens_within(s.id, n, plan.kv.free_blocks() - pending);
        if (n <= 0) continue;
        if (!plan.kv.reserve(s.id, n, pending)) throw std::logic_error("Scheduler: a sized prefill chunk did not fit");
        push(s, n);
    }
}

void Scheduler::plan_waiting(SchedulePlan& plan, int running_count, int& budget) const {
    // Blocks promised to running prefills that got no tokens this step stay free for them.
    int64_t keep_free = 0;
    for (SeqId id : running_) {
        if (std::any_of(plan.chunks.begin(), plan.chunks.end(), [&](const ScheduledChunk& c) { return c.id == id; })) continue;
        if (std::find(plan.out_of_memory.begin(), plan.out_of_memory.end(), id) != plan.out_of_memory.end()) continue;
        keep_free += plan.kv.blocks_needed(id, 1);
    }
    bool static_open = false;  // static mode: may this step admit the batch's members?
    if (config_.static_batching) {
        if (static_members_.empty() && !waiting_.empty() &&
            (int(waiting_.size()) >= config_.static_batch_size || input_closed_)) {
            for (const auto& k : waiting_) {
                if (int(plan.static_batch.size()) >= config_.static_batch_size) break;
                plan.static_batch.push_back(std::get<2>(k));
            }
        }
        static_open = true;
    }
    auto member = [&](SeqId id) {
        return static_members_.count(id) ||
               std::find(plan.static_batch.begin(), plan.static_batch.end(), id) != plan.static_batch.end();
    };
    for (const auto& key : waiting_) {
        if (budget <= 0 || running_count >= config_.max_num_seqs) break;
        const SchedSequence& s = seqs_.at(std::get<2>(key));
        if (static_open && !member(s.id)) continue;
        if (kv_.blocks_to_run(int64_t(s.tokens.size())) > kv_.num_blocks()) {
            plan.out_of_memory.push_back(s.id);
            continue;
        }
        const PrefixHit hit = kv_.find_prefix(s.tokens);
        // Head of the line waits a step or so rather than computing a prefix twice.
        if (awaits_shared_prefix(s, hit, plan)) break;
        const int start = int(hit.blocks.size()) * kv_.block_size();
        int n = std::min(int(s.tokens.size()) - start, budget);
        // Under a window the whole prompt need not fit the pool at once, only each chunk with the
        // window before it: cap the first chunk at the pool, so it can run once the pool is free.
        if (kv_.sliding_window() > 0)
            n = int(std::min<int64_t>(n, (kv_.num_blocks() + kv_.first_live_block(start)) * kv_.block_size() - start));
        // Head of the line waits for room rather than being overtaken (no starvation).
        if (!plan.kv.reserve_new(s.id, hit, n, keep_free)) break;
        ScheduledChunk c;
        c.id = s.id;
        c.context_before = start;
        c.num_tokens = n;
        c.samples = start + n == int(s.tokens.size());
        c.prefill = true;
        plan.chunks.push_back(c);
        plan.admitted.push_back(s.id);
        budget -= n;
        ++running_count;
    }
}

bool Scheduler::awaits_shared_prefix(const SchedSequence& s, const PrefixHit& hit, const SchedulePlan& plan) const {
    if (!config_.enable_prefix_caching) return false;
    const size_t bs = size_t(kv_.block_size());
    const size_t next = hit.blocks.size();  // the first full block the cache cannot serve
    if (next >= (s.tokens.size() - 1) / bs) return false;
    const size_t end = (next + 1) * bs;
    auto computing = [&](SeqId id) {
        const SchedSequence& p = seqs_.at(id);
        return size_t(p.num_computed) < end && p.tokens.size() >= end &&
               std::equal(s.tokens.begin() + ptrdiff_t(next * bs), s.tokens.begin() + ptrdiff_t(end), p.tokens.begin() + ptrdiff_t(next * bs)) &&
               std::equal(s.tokens.begin(), s.tokens.begin() + ptrdiff_t(next * bs), p.tokens.begin());
    };
    // A running sequence (or one admitted earlier in this plan) is computing that very block: it
    // will be in the cache once that sequence's prefill passes it.
    return std::any_of(running_.begin(), running_.end(), computing) ||
           std::any_of(plan.admitted.begin(), plan.admitted.end(), computing);
}

// ---------------------------------------------------------------- apply

std::vector<BlockCopy> Scheduler::apply(const SchedulePlan& plan) {
    if (plan.version != version_) throw std::logic_error("Scheduler::apply: the plan is stale (the scheduler changed since schedule())");
    ++version_;
    for (SeqId id : plan.static_batch) static_members_.insert(id);
    std::vector<BlockCopy> copies = kv_.apply(plan.kv);
    for (SeqId id : plan.out_of_memory) {
        const auto it = seqs_.find(id);
        if (it == seqs_.end()) continue;
        if (it->second.running) running_.erase(std::find(running_.begin(), running_.end(), id));
        else waiting_.erase(wait_key(it->second));
        static_members_.erase(id);
        seqs_.erase(it);
    }
    for (SeqId id : plan.preempted) {
        SchedSequence& s = seqs_.at(id);
        running_.erase(std::find(running_.begin(), running_.end(), id));
        s.running = false;
        s.num_computed = 0;
        ++s.preemptions;
        ++preemptions_;
        waiting_.insert(wait_key(s));
    }
    for (SeqId id : plan.admitted) {
        SchedSequence& s = seqs_.at(id);
        waiting_.erase(wait_key(s));
        s.running = true;
        s.admission = next_admission_++;
        s.admitted_len = int(s.tokens.size());
        s.num_computed = kv_.sequence(id).num_tokens;  // the prefix-cache hit
        running_.push_back(id);
    }
    return copies;
}

void Scheduler::complete(const SchedulePlan& plan, std::span<const int32_t> sampled) {
    ++version_;
    size_t k = 0;
    for (const ScheduledChunk& c : plan.chunks) {
        SchedSequence& s = seqs_.at(c.id);
        if (s.num_computed != c.context_before) throw std::logic_error("Scheduler::complete: plan does not match the sequence");
        kv_.commit(c.id, c.num_tokens, s.tokens);
        s.num_computed += c.num_tokens;
        if (c.samples) {
            if (k >= sampled.size()) throw std::logic_error("Scheduler::complete: fewer sampled tokens than sampling chunks");
            s.tokens.push_back(sampled[k++]);
        }
    }
    if (k != sampled.size()) throw std::logic_error("Scheduler::complete: more sampled tokens than sampling chunks");
}

void Scheduler::check_invariants() const {
    kv_.check_invariants();
    auto fail = [](const std::string& what) { throw std::logic_error("Scheduler invariant: " + what); };
    if (running_.size() + waiting_.size() != seqs_.size()) fail("running + waiting != sequences");
    std::vector<SeqId> r = running_;
    std::sort(r.begin(), r.end());
    if (std::adjacent_find(r.begin(), r.end()) != r.end()) fail("a sequence runs twice");
    uint64_t last_admission = 0;
    for (SeqId id : running_) {
        const auto it = seqs_.find(id);
        if (it == seqs_.end() || !it->second.running) fail("running list names a sequence that is not running");
        const SchedSequence& s = it->second;
        if (s.admission <= last_admission) fail("running list is not in admission order");
        last_admission = s.admission;
        if (!kv_.holds(id)) fail("running sequence " + std::to_string(id) + " holds no KV table");
        if (kv_.sequence(id).num_tokens != s.num_computed) fail("sequence " + std::to_string(id) + " computed count disagrees with its KV");
        if (s.num_uncomputed() < 1) fail("running sequence " + std::to_string(id) + " has nothing left to compute");
    }
    for (const auto& k : waiting_) {
        const auto it = seqs_.find(std::get<2>(k));
        if (it == seqs_.end() || it->second.running) fail("waiting queue names a sequence that is not waiting");
        if (kv_.holds(it->first) || it->second.num_computed != 0) fail("waiting sequence holds KV");
    }
    if (int64_t(kv_.sequences().size()) != int64_t(running_.size())) fail("KV tables exist for sequences that do not run");
    for (SeqId id : static_members_)
        if (!seqs_.count(id)) fail("static batch names a finished sequence");
}

}  // namespace folio
