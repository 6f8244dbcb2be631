#include "engine/runtime/engine_core.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "engine/core/error.h"
#include "engine/model/model.h"
#include "engine/runtime/sample_step.h"

namespace folio {

namespace {

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

KvLayout kv_layout_of(const Model& model, int block_size, KvCacheDtype dtype) {
    KvLayout l;
    l.dtype = dtype;
    l.num_layers = model.config.num_layers;
    l.num_kv_heads = model.config.num_kv_heads;
    l.head_dim = model.config.head_dim;
    l.block_size = block_size;
    return l;
}

// The pool size, from an explicit block count or the backend's plan for a memory budget.
SchedulerConfig scheduler_config(const Model& model, const Backend& backend, const EngineOptions& o) {
    if (o.block_size < 1 || o.block_size > 1024) throw Error("block_size must be between 1 and 1024 (got " + std::to_string(o.block_size) + ")");
    SchedulerConfig c;
    c.block_size = o.block_size;
    c.max_model_len = model.context_length();
    c.max_num_seqs = o.max_num_seqs;
    c.max_num_batched_tokens = o.max_num_batched_tokens;
    c.enable_prefix_caching = o.enable_prefix_caching;
    c.sliding_window = o.free_out_of_window_blocks ? attention_window(model.config) : 0;
    c.static_batching = o.batching == BatchingMode::Static;
    c.static_batch_size = o.static_batch_size;
    if (o.num_kv_blocks < 0) throw Error("num_kv_blocks must not be negative");
    if (o.num_kv_blocks > 0) {
        c.num_blocks = o.num_kv_blocks;
    } else {
        const int64_t one_sequence = (int64_t(c.max_model_len) + c.block_size - 1) / c.block_size;
        // A sliding-window sequence holds only its window's blocks: that much runs it at full context.
        const int64_t least = blocks_to_run(c.max_model_len, c.sliding_window, c.block_size);
        c.num_blocks = backend.plan_kv_blocks(kv_layout_of(model, c.block_size, o.kv_cache_dtype), o.kv_cache_bytes, least);
        // More than every sequence at full context can never be used (a small model would otherwise
        // take gigabytes of the default budget for nothing).
        if (o.kv_cache_bytes == 0) c.num_blocks = std::min(c.num_blocks, one_sequence * std::max(1, c.max_num_seqs));
    }
    return c;
}

}  // namespace

// Everything the engine keeps about a request beside the scheduler's tokens.
struct EngineCore::Active {
    RequestId id = 0;
    SamplingParams sampling;
    uint64_t seed = 0;
    std::string tag;
    std::vector<int32_t> end_ids;  // ids that end it: its stop ids, and the EOS ids unless ignore_eos
    int max_tokens = 0;          // the request's max_tokens, counted from its prompt (a fork: its parent's)
    int max_new = 0;             // tokens it may still report: max_tokens less the inherited ones, at least 1
    int num_prompt_tokens = 0;   // the prompt as the scheduler knows it (a fork's includes the shared tokens)
    int generated_before = 0;    // a fork's tokens inherited from its parent (not reported again)
    int preemptions = 0;
    int cached_prompt_tokens = 0;
    bool scheduled = false;
    Clock::time_point submitted, first_scheduled, first_token, last_token;
    int tokens_reported = 0;
    RequestId group = 0;              // n replies: the first reply's id (its group in groups_)
    std::vector<RequestId> unforked;  // the first reply, until its prompt is sampled: the other replies
};

EngineCore::EngineCore(std::shared_ptr<const Model> model, std::unique_ptr<Backend> backend, const EngineOptions& options)
    : model_(std::move(model)),
      backend_(std::move(backend)),
      sched_(scheduler_config(*model_, *backend_, options)),
      seed_rng_(std::random_device{}()) {
    KvLayout layout = kv_layout_of(*model_, options.block_size, options.kv_cache_dtype);
    layout.num_blocks = sched_.kv().num_blocks();
    report(options.backend.progress, "allocating the KV cache");
    backend_->allocate_kv(layout);
    kv_cache_dtype_ = kv_cache_dtype_name(options.kv_cache_dtype, backend_->name() == "cpu" ? "fp32" : "fp16");
    kv_bytes_per_block_ = backend_->kv_bytes_per_block(layout);
    device_name_ = backend_->device_name();
}

EngineCore::~EngineCore() = default;

RequestId EngineCore::add(CoreRequest request) {
    while (active_.count(next_id_)) ++next_id_;
    const RequestId id = next_id_++;
    add(id, std::move(request));
    return id;
}

void EngineCore::add(RequestId id, CoreRequest request) {
    if (id == 0 || active_.count(id)) {
        reject(id, "request id " + std::to_string(id) + " is zero or already in use");
        return;
    }
    const int n = request.n;
    if (n < 1 || n > kMaxReplies) {
        reject(id, "n (replies) must be in [1, " + std::to_string(kMaxReplies) + "], got " + std::to_string(n));
        return;
    }
    for (int i = 1; i < n; ++i)
        if (active_.count(id + RequestId(i))) {
            reject(id, "request id " + std::to_string(id + RequestId(i)) + " (reply " + std::to_string(i) + ") is already in use");
            return;
        }
    // A refusal ends every reply.
    auto reject_all = [&](const std::string& why) {
        for (int i = 1; i < n; ++i) reject(id + RequestId(i), why, request.prompt_ids);
        reject(id, why, std::move(request.prompt_ids));
    };
    try {
        validate(request.sampling);
        if (request.max_tokens < 1) throw Error("max_tokens must be >= 1, got " + std::to_string(request.max_tokens));
        const int vocab = model_->config.vocab_size;
        for (size_t i = 0; i < request.prompt_ids.size(); ++i) {
            const int32_t t = request.prompt_ids[i];
            if (t < 0 || t >= vocab)
                throw Error("prompt token " + std::to_string(i) + " is id " + std::to_string(t) + ", outside the model's vocabulary of " +
                            std::to_string(vocab));
        }
    } catch (const std::exception& e) {
        reject_all(e.what());
        return;
    }
    if (const std::string why = sched_.check_prompt(int64_t(request.prompt_ids.size())); !why.empty()) {
        reject_all(why);
        return;
    }
    auto a = std::make_unique<Active>();
    a->id = id;
    a->sampling = request.sampling;
    a->seed = request.sampling.seed ? *request.sampling.seed : seed_rng_();
    a->tag = std::move(request.tag);
    a->end_ids = std::move(request.stop_token_ids);
    if (!request.ignore_eos) a->end_ids.insert(a->end_ids.end(), request.eos_token_ids.begin(), request.eos_token_ids.end());
    a->max_tokens = a->max_new = request.max_tokens;
    a->num_prompt_tokens = int(request.prompt_ids.size());
    a->submitted = request.arrival == Clock::time_point{} ? Clock::now() : request.arrival;
    if (n > 1) {
        // The other replies wait beside the first, outside the scheduler, until its prompt is sampled.
        std::vector<RequestId>& group = groups_[id];
        group.push_back(id);
        a->group = id;
        const Active proto = *a;
        for (int i = 1; i < n; ++i) {
            auto r = std::make_unique<Active>(proto);
            r->id = id + RequestId(i);
            r->seed = a->seed + uint64_t(i);
            group.push_back(r->id);
            a->unforked.push_back(r->id);
            active_.emplace(r->id, std::move(r));
        }
    }
    sched_.add(id, std::move(request.prompt_ids), request.priority);
    active_.emplace(id, std::move(a));
    stalled_ = false;
}

void EngineCore::cancel(RequestId id) {
    if (const auto g = groups_.find(id); g != groups_.end()) {
        const std::vector<RequestId> replies = g->second;  // finish() may erase the group
        for (RequestId r : replies) finish(r, FinishReason::Cancelled);
        return;
    }
    finish(id, FinishReason::Cancelled);
}

void EngineCore::abort(RequestId id) {
    const auto it = active_.find(id);
    if (it == active_.end()) return;
    // Replies never started can no longer start: they end with the first.
    const std::vector<RequestId> unforked = std::move(it->second->unforked);
    const RequestId group = it->second->group;
    active_.erase(it);
    sched_.remove(id);
    for (RequestId r : unforked) finish(r, FinishReason::Cancelled);
    if (group) {
        const auto g = groups_.find(group);
        if (g != groups_.end() && std::none_of(g->second.begin(), g->second.end(), [&](RequestId r) { return active_.count(r) > 0; }))
            groups_.erase(g);
    }
    stalled_ = false;
}

std::optional<RequestId> EngineCore::fork(RequestId parent, const SamplingParams& sampling) {
    validate(sampling);
    if (!active_.count(parent)) return std::nullopt;
    while (active_.count(next_id_)) ++next_id_;
    const RequestId id = next_id_++;
    if (!fork(parent, id, sampling)) return std::nullopt;
    return id;
}

bool EngineCore::fork(RequestId parent, RequestId child, const SamplingParams& sampling) {
    validate(sampling);
    const auto it = active_.find(parent);
    const SchedSequence* ps = sched_.find(parent);
    if (it == active_.end() || !ps || child == 0 || active_.count(child)) return false;
    const Active& p = *it->second;
    auto a = std::make_unique<Active>();
    a->id = child;
    a->sampling = sampling;
    a->seed = sampling.seed ? *sampling.seed : seed_rng_();
    a->tag = p.tag;
    a->end_ids = p.end_ids;
    // The child's tokens start after the fork; inherited tokens count towards its max_tokens.
    a->max_tokens = p.max_tokens;
    a->generated_before = ps->num_generated();
    a->max_new = std::max(1, a->max_tokens - a->generated_before);
    a->num_prompt_tokens = ps->num_prompt_tokens;
    a->submitted = Clock::now();
    if (ps->running) {
        a->scheduled = true;
        a->first_scheduled = a->submitted;
    }
    sched_.fork(parent, child);
    active_.emplace(child, std::move(a));
    return true;
}

void EngineCore::set_input_closed(bool closed) {
    sched_.set_input_closed(closed);
    stalled_ = false;
}

bool EngineCore::has_unfinished() const { return sched_.has_unfinished(); }

int EngineCore::num_generated(RequestId id) const {
    const SchedSequence* s = sched_.find(id);
    return s ? s->num_generated() : 0;
}

void EngineCore::reject(RequestId id, const std::string& message, std::vector<int32_t> prompt_ids) {
    CoreEvent e;
    e.id = id;
    e.finished = true;
    e.reason = FinishReason::Error;
    e.message = message;
    e.timings.prompt_tokens = int(prompt_ids.size());
    e.prompt_ids = std::move(prompt_ids);
    pending_.push_back(std::move(e));
}

RequestTimings EngineCore::timings_of(const Active& a, Clock::time_point now) const {
    RequestTimings t;
    t.prompt_tokens = a.num_prompt_tokens;
    t.cached_prompt_tokens = a.cached_prompt_tokens;
    t.generated_tokens = a.tokens_reported;
    t.preemptions = a.preemptions;
    if (a.scheduled) t.queue_ms = ms_between(a.submitted, a.first_scheduled);
    else t.queue_ms = ms_between(a.submitted, now);
    if (a.tokens_reported > 0) {
        t.ttft_ms = ms_between(a.submitted, a.first_token);
        const double prefill_s = ms_between(a.first_scheduled, a.first_token) / 1000.0;
        const int computed = a.num_prompt_tokens - a.cached_prompt_tokens;
        if (prefill_s > 0) t.prefill_tok_s = double(computed) / prefill_s;
        const double decode_s = ms_between(a.first_token, a.last_token) / 1000.0;
        if (a.tokens_reported > 1 && decode_s > 0) t.decode_tok_s = double(a.tokens_reported - 1) / decode_s;
    }
    return t;
}

void EngineCore::finish(RequestId id, FinishReason reason, const std::string& message, int32_t token) {
    const auto it = active_.find(id);
    if (it == active_.end()) return;
    const Active& a = *it->second;
    const std::vector<RequestId> unforked = a.unforked;
    const RequestId group = a.group;
    CoreEvent e;
    e.id = id;
    e.token = token;
    e.finished = true;
    e.reason = reason;
    e.message = message;
    e.timings = timings_of(a, Clock::now());
    if (const SchedSequence* s = sched_.find(id)) e.prompt_ids.assign(s->tokens.begin(), s->tokens.begin() + s->num_prompt_tokens);
    sched_.remove(id);
    active_.erase(it);
    pending_.push_back(std::move(e));
    // The first reply ended before its prompt was sampled (an error, a cancel, the pool): the
    // replies waiting on it end the same way, with the prompt.
    for (RequestId r : unforked) {
        const std::vector<int32_t> prompt = pending_.back().prompt_ids;
        finish(r, reason, message);
        pending_.back().prompt_ids = prompt;
    }
    if (group) {
        const auto g = groups_.find(group);
        if (g != groups_.end() && std::none_of(g->second.begin(), g->second.end(), [&](RequestId r) { return active_.count(r) > 0; }))
            groups_.erase(g);
    }
}

void EngineCore::fork_replies(RequestId parent, const std::vector<std::pair<RequestId, int32_t>>& replies) {
    Active& p = *active_.at(parent);
    p.unforked.clear();
    for (const auto& [id, token] : replies) {
        Active& r = *active_.at(id);
        r.scheduled = p.scheduled;
        r.first_scheduled = p.first_scheduled;
        r.cached_prompt_tokens = p.cached_prompt_tokens;
        sched_.fork_replacing_last(parent, id, token);
    }
}

void EngineCore::fail_all(const std::string& message) {
    std::vector<RequestId> ids;
    for (const auto& [id, a] : active_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (RequestId id : ids) finish(id, FinishReason::Error, message);
}

void EngineCore::on_token(RequestId id, int32_t token, std::optional<TokenLogprobs> logprobs, Clock::time_point now) {
    Active& a = *active_.at(id);
    if (a.tokens_reported == 0) a.first_token = now;
    a.last_token = now;
    ++a.tokens_reported;
    ++total_generated_tokens_;
    // Checked in this order for each token; a stop string (the front door's) may still end it earlier.
    auto end = [&](FinishReason reason) {
        finish(id, reason, {}, token);
        pending_.back().logprobs = std::move(logprobs);
    };
    if (std::find(a.end_ids.begin(), a.end_ids.end(), token) != a.end_ids.end()) return end(FinishReason::Eos);
    if (a.tokens_reported >= a.max_new) return end(FinishReason::Length);
    // The token just sampled takes the last position of the context: nothing can follow it.
    if (int64_t(sched_.find(id)->tokens.size()) >= sched_.config().max_model_len) return end(FinishReason::ContextFull);
    CoreEvent e;
    e.id = id;
    e.token = token;
    e.logprobs = std::move(logprobs);
    e.timings = timings_of(a, now);
    pending_.push_back(std::move(e));
}

std::vector<CoreEvent> EngineCore::step() {
    const Clock::time_point t0 = Clock::now();
    SchedulePlan plan = sched_.schedule();
    stalled_ = plan.empty() && sched_.has_unfinished();
    if (plan.empty()) return std::exchange(pending_, {});

    // Sequences the whole pool cannot hold any more end here; note their prompts before apply()
    // drops them.
    std::vector<std::pair<RequestId, std::vector<int32_t>>> dropped;
    for (SeqId id : plan.out_of_memory) {
        const SchedSequence* s = sched_.find(id);
        dropped.push_back({id, std::vector<int32_t>(s->tokens.begin(), s->tokens.begin() + s->num_prompt_tokens)});
    }
    const std::vector<BlockCopy> copies = sched_.apply(plan);
    for (auto& [id, prompt] : dropped) {
        Active& a = *active_.at(id);
        const int64_t tokens = int64_t(prompt.size()) + a.generated_before + a.tokens_reported;
        const std::string why = "the KV pool (" + std::to_string(sched_.kv().num_blocks()) + " blocks of " +
                                std::to_string(sched_.kv().block_size()) + " tokens) cannot hold this conversation's " +
                                std::to_string(tokens) + " tokens; give the KV cache more memory";
        const size_t first_event = pending_.size();
        finish(id, FinishReason::ContextFull, why);  // and the replies waiting on it, if any
        for (size_t k = first_event; k < pending_.size(); ++k) pending_[k].prompt_ids = prompt;
    }
    for (SeqId id : plan.preempted) ++active_.at(id)->preemptions;
    for (SeqId id : plan.admitted) {
        Active& a = *active_.at(id);
        if (a.scheduled) continue;
        a.scheduled = true;
        a.first_scheduled = t0;
        a.cached_prompt_tokens = sched_.kv().sequence(id).num_tokens;
    }
    if (plan.chunks.empty()) return std::exchange(pending_, {});

    ForwardBatch batch;
    StepSampling sampling;
    std::vector<SamplingRow>& rows = sampling.rows;
    std::vector<RequestId> sampling_ids;
    // n replies whose prompt this step samples: (first reply, row of each other reply).
    std::vector<std::pair<RequestId, std::vector<size_t>>> reply_rows;
    int logits_rows = 0;
    int64_t prefill_tokens = 0, decode_tokens = 0;
    for (const ScheduledChunk& c : plan.chunks) {
        const SchedSequence& s = *sched_.find(c.id);
        const KvSequence& kv = sched_.kv().sequence(c.id);
        SeqSlice slice;
        slice.seq_id = int64_t(c.id);
        slice.token_offset = batch.num_tokens();
        slice.num_tokens = c.num_tokens;
        slice.context_before = c.context_before;
        slice.block_table_offset = int(batch.block_tables.size());
        slice.num_blocks = int(kv.blocks.size());
        slice.want_logits = c.samples;
        batch.tokens.insert(batch.tokens.end(), s.tokens.begin() + c.context_before, s.tokens.begin() + c.context_before + c.num_tokens);
        batch.block_tables.insert(batch.block_tables.end(), kv.blocks.begin(), kv.blocks.end());
        batch.seqs.push_back(slice);
        (c.prefill ? prefill_tokens : decode_tokens) += c.num_tokens;
        if (!c.samples) continue;
        const Active& a = *active_.at(c.id);
        SamplingRow row;
        row.params = &a.sampling;
        row.prompt_ids = s.tokens.data();
        row.num_prompt_ids = s.num_prompt_tokens;
        row.output_ids = s.tokens.data() + s.num_prompt_tokens;
        row.num_output_ids = s.num_generated();
        row.seed = a.seed;
        row.step = uint64_t(s.num_generated());
        rows.push_back(row);
        sampling.logits_row.push_back(logits_rows);
        sampling_ids.push_back(c.id);
        if (!a.unforked.empty() && s.num_generated() == 0) {
            // The other replies draw their first tokens from this same logits row.
            std::vector<size_t>& mine = reply_rows.emplace_back(c.id, std::vector<size_t>()).second;
            for (RequestId r : a.unforked) {
                const auto bt = active_.find(r);
                if (bt == active_.end()) continue;  // cancelled on its own
                const Active& b = *bt->second;
                SamplingRow rr = row;
                rr.params = &b.sampling;
                rr.seed = b.seed;
                mine.push_back(rows.size());
                rows.push_back(rr);
                sampling.logits_row.push_back(logits_rows);
                sampling_ids.push_back(r);
            }
        }
        ++logits_rows;
    }
    if (reply_rows.empty()) sampling.logits_row.clear();  // one row per logits row: the device may sample

    std::vector<int32_t> sampled;
    std::vector<TokenLogprobs> logprobs;
    try {
        if (!copies.empty()) {
            std::vector<std::pair<int32_t, int32_t>> pairs;
            for (const BlockCopy& c : copies) pairs.push_back({c.src, c.dst});
            backend_->copy_blocks(pairs);
        }
        sample_step(*backend_, sampler_, batch, sampling, logits_, logits_copies_, sampled, logprobs);
        if (sampled.size() != rows.size())
            throw Error("the backend returned " + std::to_string(sampled.size()) + " tokens for " + std::to_string(rows.size()) + " sequences");
    } catch (const std::exception& e) {
        // The step's sequences cannot continue (their KV for this step is not written); everything
        // else is untouched and the engine goes on.
        const std::string message = "the " + backend_->name() + " backend failed during a step: " + e.what();
        for (const ScheduledChunk& c : plan.chunks) finish(c.id, FinishReason::Error, message);
        last_step_ms_ = ms_between(t0, Clock::now());
        return std::exchange(pending_, {});
    }
    if (reply_rows.empty()) {
        sched_.complete(plan, sampled);
    } else {
        std::vector<bool> is_reply(rows.size(), false);
        for (const auto& [first, mine] : reply_rows)
            for (size_t i : mine) is_reply[i] = true;
        std::vector<int32_t> own;
        for (size_t i = 0; i < sampled.size(); ++i)
            if (!is_reply[i]) own.push_back(sampled[i]);
        sched_.complete(plan, own);
        for (const auto& [first, mine] : reply_rows) {
            std::vector<std::pair<RequestId, int32_t>> replies;
            for (size_t i : mine) replies.push_back({sampling_ids[i], sampled[i]});
            fork_replies(first, replies);
        }
    }
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < sampled.size(); ++i) {
        std::optional<TokenLogprobs> lp;
        if (i < logprobs.size() && rows[i].params->logprobs >= 0) lp = std::move(logprobs[i]);
        on_token(sampling_ids[i], sampled[i], std::move(lp), now);
    }

    ++steps_;
    last_batch_seqs_ = int(plan.chunks.size());
    last_batch_tokens_ = plan.num_tokens;
    last_step_ms_ = ms_between(t0, now);
    total_prompt_tokens_ += prefill_tokens;
    window_.add(t0, now, prefill_tokens, decode_tokens);
    peak_blocks_used_ = std::max(peak_blocks_used_, sched_.kv().pool().num_used());
    batched_seqs_total_ += last_batch_seqs_;
    const KvCounters kv = sched_.kv().counters();
    kv_slots_allocated_total_ += kv.slots_allocated;
    kv_slots_filled_total_ += kv.slots_filled;
    return std::exchange(pending_, {});
}
EngineStats EngineCore::stats() const {
    EngineStats st;
    const Clock::time_point now = Clock::now();
    st.kv = sched_.kv().counters();
    st.kv_cache_dtype = kv_cache_dtype_;
    st.kv_bytes_per_block = kv_bytes_per_block_;
    st.peak_blocks_used = peak_blocks_used_;
    st.running = sched_.num_running();
    st.waiting = sched_.num_waiting();
    st.preemptions = sched_.preemptions();
    st.last_batch_seqs = last_batch_seqs_;
    st.last_batch_tokens = last_batch_tokens_;
    st.last_step_ms = last_step_ms_;
    st.steps = steps_;
    st.batched_seqs_total = batched_seqs_total_;
    st.kv_slots_allocated_total = kv_slots_allocated_total_;
    st.kv_slots_filled_total = kv_slots_filled_total_;
    st.prefill_tok_s = window_.prefill_rate(now);
    st.decode_tok_s = window_.decode_rate(now);
    st.total_prompt_tokens = total_prompt_tokens_;
    st.total_generated_tokens = total_generated_tokens_;
    st.backend = backend_->name();
    st.device_name = device_name_;
    // Reading process memory costs a file read: refresh it a few times a second, not every step.
    if (now - memory_at_ > std::chrono::milliseconds(250)) {
        memory_ = backend_->memory();
        memory_at_ = now;
    }
    st.memory = memory_;
    std::vector<RequestId> ids;
    for (const auto& [id, a] : active_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (RequestId id : ids) {
        const Active& a = *active_.at(id);
        const SchedSequence* s = sched_.find(id);
        if (!s) continue;
        SequenceStats q;
        q.id = id;
        q.tag = a.tag;
        if (!s->running) q.state = s->preemptions > 0 ? SequenceStats::State::Preempted : SequenceStats::State::Waiting;
        else q.state = s->num_computed < s->admitted_len ? SequenceStats::State::Prefilling : SequenceStats::State::Decoding;
        q.prompt_tokens = a.num_prompt_tokens;
        q.generated_tokens = a.tokens_reported;
        const KvSequenceInfo info = sched_.kv().info(id);
        q.blocks = info.blocks;
        q.shared_blocks = info.shared_blocks;
        const RequestTimings t = timings_of(a, now);
        q.prefill_tok_s = t.prefill_tok_s;
        q.decode_tok_s = t.decode_tok_s;
        st.sequences.push_back(std::move(q));
    }
    return st;
}

}  // namespace folio
