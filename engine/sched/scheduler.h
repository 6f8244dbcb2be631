#pragma once
// The iteration-level scheduler: which sequences run in the next step, how many tokens each, and who
// makes room when the KV pool runs out.
//
// Each step has one token budget (max_num_batched_tokens) and a sequence cap (max_num_seqs):
//  1. KV guarantee, oldest running first: every running sequence must be able to write one more
//     token; when the pool cannot hold that, the newest (lowest priority first) running sequence is
//     preempted by recompute: its blocks are freed and it waits again, prompt + generated tokens as
//     its new prompt, ahead of everything submitted after it.
//  2. Decodes of running sequences (1 token each), so streams never stall.
//  3. Prefill chunks of running sequences, then of waiting ones (priority, then arrival), in
//     whatever budget is left: a long prompt is prefilled over several steps next to the decodes.
//     A waiting prompt whose next full block another sequence is computing right now waits until
//     that block is cached, so prompts sent together with a common prefix compute and hold it once.
// The oldest sequence can always progress, so nothing deadlocks or starves; a sequence the whole pool
// cannot hold is handed back as out_of_memory instead of looping.
//
// schedule() prepares a plan without changing anything; apply() carries it out (the only step that
// moves blocks); complete() records the forward pass's results.
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/kv/kv_cache_manager.h"
#include "engine/sched/sched_sequence.h"
#include "engine/sched/schedule_plan.h"
#include "engine/sched/scheduler_config.h"

namespace folio {

class Scheduler {
public:
    // Throws folio::Error on inconsistent settings (e.g. a token budget below the sequence cap).
    explicit Scheduler(const SchedulerConfig& config);

    const SchedulerConfig& config() const { return config_; }

    // Why a prompt of `num_tokens` can never run (empty, longer than the context, larger than the
    // whole KV pool), as a message for the user; empty when it can.
    std::string check_prompt(int64_t num_tokens) const;
    // Queues a request. Throws folio::Error with check_prompt's message, or on a duplicate id.
    void add(SeqId id, std::vector<int32_t> prompt, int priority = 0);
    // A new sequence `child` continuing exactly where `parent` stands (same tokens, shared KV
    // blocks; copy-on-write when either writes into a shared block). Throws folio::Error when the
    // parent is unknown or the child id is taken.
    void fork(SeqId parent, SeqId child);
    // As fork(), for the n replies of one prompt: `parent` has just sampled its first token, which
    // has no KV yet, and `child` gets `last_token` in its place (it drew its own from the same logits).
    void fork_replacing_last(SeqId parent, SeqId child, int32_t last_token);
    // Drops a sequence wherever it is (finished, cancelled, failed) and frees its blocks now.
    // Unknown ids are ignored.
    void remove(SeqId id);
    // Static mode: no more requests are coming, so a batch smaller than static_batch_size may start.
    void set_input_closed(bool closed) {
        input_closed_ = closed;
        ++version_;
    }

    SchedulePlan schedule() const;
    // Carries out a plan from schedule(), made since the last apply(): preemptions, admissions, out-
    // of-memory drops, then the KV plan. Returns the block copies the backend must make first.
    std::vector<BlockCopy> apply(const SchedulePlan& plan);
    // The step's forward pass succeeded: every chunk's KV is written; `sampled` holds one token per
    // sampling chunk, in plan order, appended to its sequence.
    void complete(const SchedulePlan& plan, std::span<const int32_t> sampled);

    const SchedSequence* find(SeqId id) const;
    const std::vector<SeqId>& running() const { return running_; }  // admission order
    std::vector<SeqId> waiting() const;                              // admission order to come
    int num_running() const { return int(running_.size()); }
    int num_waiting() const { return int(waiting_.size()); }
    bool has_unfinished() const { return !seqs_.empty(); }
    int64_t preemptions() const { return preemptions_; }
    const KvCacheManager& kv() const { return kv_; }

    // Throws std::logic_error on a broken invariant (queues vs sequences vs KV tables). For tests.
    void check_invariants() const;

private:
    using WaitKey = std::tuple<int, uint64_t, SeqId>;  // (-priority, arrival, id)
    static WaitKey wait_key(const SchedSequence& s) { return {-s.priority, s.arrival, s.id}; }

    void plan_kv_guarantee(SchedulePlan& plan, std::vector<SeqId>& kept, std::vector<int>& min_need) const;
    void plan_running(SchedulePlan& plan, const std::vector<SeqId>& kept, const std::vector<int>& min_need, int& budget) const;
    void plan_waiting(SchedulePlan& plan, int running_count, int& budget) const;
    // True when the block after `s`'s prefix hit is being computed by another running (or just
    // admitted) sequence with the same tokens so far: `s` waits for it to be cached instead of
    // computing and holding a second copy (N identical prompts sent at once share one).
    bool awaits_shared_prefix(const SchedSequence& s, const PrefixHit& hit, const SchedulePlan& plan) const;

    SchedulerConfig config_;
    KvCacheManager kv_;
    std::unordered_map<SeqId, SchedSequence> seqs_;
    std::vector<SeqId> running_;
    std::set<WaitKey> waiting_;
    std::unordered_set<SeqId> static_members_;
    bool input_closed_ = false;
    uint64_t next_arrival_ = 1;
    uint64_t next_admission_ = 1;
    int64_t preemptions_ = 0;
    uint64_t version_ = 1;  // bumped by every change, so a stale plan is refused
};

}  // namespace folio
