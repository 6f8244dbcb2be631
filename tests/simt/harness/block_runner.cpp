// The SIMT scheduler: runs one block at a time, its threads as fibers that yield only at
// collectives, and checks the synchronisation rules while doing so.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include "fiber.h"
#include "simt_launch.h"

namespace folio::simt {

Registers g_regs;

namespace {

struct AsyncCopy {
    void* dst;
    const void* src;
    int bytes;
    int src_bytes;
    int group;
};

struct Thread {
    FiberContext ctx;
    uint3 tid{};
    unsigned warp = 0, lane = 0;
    enum class State : uint8_t { Ready, WaitBlock, WaitWarp, WaitReaders, Done } state = State::Ready;
    uint64_t wait_gen = 0;
    int exchange_buffer = -1;  // warp buffer this lane is reading (between begin and end)
    std::vector<AsyncCopy> copies;
    int groups_committed = 0;
};

struct Warp {
    unsigned existing = 0;  // lanes that exist in this block
    unsigned arrived = 0;
    unsigned mask = 0;
    unsigned pending[2] = {0, 0};  // lanes yet to read each buffer
    int phase = 0;                  // buffer the next collective writes
    uint64_t gen = 0;
    alignas(16) unsigned char slots[2][32][kSlotBytes];
    bool scratch_valid[2] = {false, false};
    alignas(16) unsigned char scratch[2][kExchangeScratchBytes];
};

struct Block {
    std::vector<Thread> threads;
    std::vector<Warp> warps;
    int live = 0;
    int arrived = 0;
    uint64_t gen = 0;
    int reduce_acc[2] = {0, 0};
    int reduce_result[2] = {0, 0};
    int reduce_phase = 0;
    std::vector<unsigned char> smem;
    std::string error;
};

struct Runner {
    FiberContext main;
    std::vector<std::unique_ptr<FiberStack>> stacks;
    Block block;
    Thread* current = nullptr;
    const std::function<void()>* body = nullptr;
    RunStats stats;
    std::map<const void*, size_t> max_smem;
    HarnessOptions opts;
    std::vector<unsigned> thread_order;
};

Runner& runner() {
    static Runner r;
    return r;
}

size_t stack_bytes() {
    const char* env = std::getenv("FOLIO_SIMT_STACK_KB");
    const size_t kb = env ? size_t(std::strtoul(env, nullptr, 10)) : 0;
    return (kb ? kb : 256) * 1024;
}

void yield(Thread& t) {
    Runner& r = runner();
    switch_context(t.ctx, r.main);
    t.state = Thread::State::Ready;
}

// Thrown by fail() inside a fiber and caught at the bottom of the same fiber's stack, so the
// temporaries of the failing kernel frame are destroyed before the fiber is abandoned.
struct FiberAbort {};

void thread_entry(void* arg) {
    Runner& r = runner();
    auto& t = *static_cast<Thread*>(arg);
    fiber_started(r.main);
    try {
        (*r.body)();
    } catch (const FiberAbort&) {
        t.state = Thread::State::Done;
        exit_to(t.ctx, r.main);  // the scheduler sees block.error and abandons the launch
    }
    Block& b = r.block;
    t.state = Thread::State::Done;
    b.live--;
    if (b.arrived > 0 && b.arrived == b.live) {  // exited threads no longer hold a barrier back
        b.arrived = 0;
        b.gen++;
    }
    exit_to(t.ctx, r.main);
}

bool ready(const Block& b, const Thread& t) {
    switch (t.state) {
        case Thread::State::Ready: return true;
        case Thread::State::WaitBlock: return b.gen != t.wait_gen;
        case Thread::State::WaitWarp: return b.warps[t.warp].gen != t.wait_gen;
        case Thread::State::WaitReaders: {
            const Warp& w = b.warps[t.warp];
            return w.pending[w.phase] == 0;
        }
        case Thread::State::Done: return false;
    }
    return false;
}

std::string hex(unsigned v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

std::string describe_deadlock(const Block& b) {
    std::ostringstream s;
    s << "deadlock in block (" << g_regs.block_idx.x << "," << g_regs.block_idx.y << "," << g_regs.block_idx.z << "): ";
    int shown = 0;
    for (const Thread& t : b.threads) {
        if (t.state == Thread::State::Done) continue;
        if (shown++ == 8) {
            s << "...";
            break;
        }
        s << "thread (" << t.tid.x << "," << t.tid.y << "," << t.tid.z << ") ";
        if (t.state == Thread::State::WaitBlock) s << "waits at __syncthreads; ";
        else {
            const Warp& w = b.warps[t.warp];
            s << "waits in a warp collective (mask " << hex(w.mask) << ", arrived " << hex(w.arrived) << "); ";
        }
    }
    s << b.live << " threads still running of " << b.threads.size();
    return s.str();
}

void make_order(std::vector<unsigned>& order, unsigned n, std::mt19937_64& rng) {
    const Schedule s = runner().opts.schedule;
    if (order.size() != n || s == Schedule::Shuffled) {
        order.resize(n);
        std::iota(order.begin(), order.end(), 0u);
        if (s == Schedule::Reverse) std::reverse(order.begin(), order.end());
        if (s == Schedule::Shuffled) std::shuffle(order.begin(), order.end(), rng);
    }
}

void run_block(Runner& r, dim3 block_dim, size_t smem_bytes, std::mt19937_64& rng) {
    Block& b = r.block;
    const unsigned n = block_dim.x * block_dim.y * block_dim.z;
    const unsigned num_warps = (n + 31) / 32;
    b.threads.assign(n, Thread{});
    b.warps.assign(num_warps, Warp{});
    b.live = int(n);
    b.arrived = 0;
    b.gen = 0;
    b.reduce_acc[0] = b.reduce_acc[1] = 0;
    b.reduce_phase = 0;
    b.error.clear();
    b.smem.assign(smem_bytes + 16, r.opts.smem_poison);
    while (r.stacks.size() < n) r.stacks.push_back(std::make_unique<FiberStack>(stack_bytes()));
    for (unsigned i = 0; i < n; ++i) {
        Thread& t = b.threads[i];
        t.tid = {i % block_dim.x, (i / block_dim.x) % block_dim.y, i / (block_dim.x * block_dim.y)};
        t.warp = i / 32;
        t.lane = i % 32;
        b.warps[t.warp].existing |= 1u << t.lane;
        init_context(t.ctx, *r.stacks[i], &thread_entry, &t);
    }
    std::vector<unsigned>& order = r.thread_order;
    order.clear();
    while (b.live > 0) {
        bool progressed = false;
        make_order(order, n, rng);
        for (unsigned i : order) {
            Thread& t = b.threads[i];
            if (!ready(b, t)) continue;
            r.current = &t;
            g_regs.thread_idx = t.tid;
            r.stats.switches++;
            switch_context(r.main, t.ctx);
            r.current = nullptr;
            if (!b.error.empty()) throw SimtError(b.error);
            progressed = true;
        }
        if (!progressed) throw SimtError(describe_deadlock(b));
    }
}

Thread& current_thread() {
    Thread* t = runner().current;
    if (!t) throw SimtError("a device function was called outside a kernel launch");
    return *t;
}

}  // namespace

HarnessOptions& options() { return runner().opts; }

RunStats last_run_stats() { return runner().stats; }

void set_max_dynamic_smem(const void* kernel, size_t bytes) { runner().max_smem[kernel] = bytes; }

void run_grid(const void* kernel, dim3 grid, dim3 block, size_t dynamic_smem, const std::function<void()>& body) {
    Runner& r = runner();
    if (r.current) throw SimtError("kernel launch from inside a kernel (dynamic parallelism is not supported)");
    const uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 ||
        grid.z > 65535 || grid.x > 0x7fffffffu)
        throw SimtError("invalid launch configuration: grid (" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," +
                        std::to_string(grid.z) + "), block (" + std::to_string(block.x) + "," + std::to_string(block.y) + "," +
                        std::to_string(block.z) + ")");
    auto it = r.max_smem.find(kernel);
    const size_t limit = it != r.max_smem.end() ? it->second : r.opts.default_max_dynamic_smem;
    if (dynamic_smem > limit)
        throw SimtError("launch asks for " + std::to_string(dynamic_smem) + " bytes of dynamic shared memory, over the " +
                        std::to_string(limit) + " allowed" +
                        (it == r.max_smem.end() ? " without cudaFuncSetAttribute(MaxDynamicSharedMemorySize)" : ""));
    r.stats = {};
    r.body = &body;
    std::mt19937_64 rng(r.opts.seed);
    const unsigned nb = grid.x * grid.y * grid.z;
    g_regs.block_dim = block;
    g_regs.grid_dim = grid;
    std::vector<unsigned> block_order;
    make_order(block_order, nb, rng);
    for (unsigned k : block_order) {
        g_regs.block_idx = {k % grid.x, (k / grid.x) % grid.y, k / (grid.x * grid.y)};
        run_block(r, block, dynamic_smem, rng);
        r.stats.blocks++;
    }
    r.body = nullptr;
}

unsigned lane_id() { return current_thread().lane; }

void* dynamic_smem() {
    Block& b = runner().block;
    auto p = reinterpret_cast<uintptr_t>(b.smem.data());
    return reinterpret_cast<void*>((p + 15) & ~uintptr_t(15));
}

void fail(const std::string& message) {
    Runner& r = runner();
    Thread& t = current_thread();
    std::ostringstream s;
    s << "thread (" << t.tid.x << "," << t.tid.y << "," << t.tid.z << ") of block (" << g_regs.block_idx.x << ","
      << g_regs.block_idx.y << "," << g_regs.block_idx.z << "): " << message;
    r.block.error = s.str();
    throw FiberAbort{};
}

void syncthreads() {
    Runner& r = runner();
    Thread& t = current_thread();
    Block& b = r.block;
    if (++b.arrived == b.live) {
        b.arrived = 0;
        b.gen++;
        return;
    }
    t.state = Thread::State::WaitBlock;
    t.wait_gen = b.gen;
    yield(t);
}

int syncthreads_reduce(int value, int op) {
    Block& b = runner().block;
    const int phase = b.reduce_phase;
    int& acc = b.reduce_acc[phase];
    if (op == 0) acc += value;
    else if (op == 1) acc += value ? 0 : 1;  // counts falses
    else acc += value;
    const bool last = b.arrived + 1 == b.live;
    if (last) {
        b.reduce_result[phase] = acc;
        acc = 0;
        b.reduce_phase ^= 1;
    }
    syncthreads();
    const int res = b.reduce_result[phase];
    if (op == 0) return res;
    if (op == 1) return res == 0;
    return res != 0;
}

const unsigned char* warp_exchange_begin(unsigned mask, const void* mine, size_t bytes, unsigned* members) {
    Thread& t = current_thread();
    Block& b = runner().block;
    Warp& w = b.warps[t.warp];
    const unsigned bit = 1u << t.lane;
    const unsigned eff = mask & w.existing;
    if (!(eff & bit))
        fail("warp collective with mask " + hex(mask) + ", which does not include the calling lane " + std::to_string(t.lane));
    while (w.pending[w.phase] != 0) {  // an older collective's readers still hold this buffer
        t.state = Thread::State::WaitReaders;
        yield(t);
    }
    if (w.arrived == 0) w.mask = eff;
    else if (w.mask != eff)
        fail("lanes of warp " + std::to_string(t.warp) + " reached a collective with different masks (" + hex(w.mask) + " and " +
             hex(eff) + ")");
    const int buf = w.phase;
    if (w.arrived == 0) w.scratch_valid[buf] = false;  // a new collective in this buffer
    std::memcpy(w.slots[buf][t.lane], mine, bytes);
    w.arrived |= bit;
    if (w.arrived == w.mask) {
        w.pending[buf] = w.mask & ~bit;
        w.arrived = 0;
        w.phase ^= 1;
        w.gen++;
    } else {
        t.state = Thread::State::WaitWarp;
        t.wait_gen = w.gen;
        yield(t);
    }
    t.exchange_buffer = buf;
    *members = eff;
    return &w.slots[buf][0][0];
}

void warp_exchange_end() {
    Thread& t = current_thread();
    Warp& w = runner().block.warps[t.warp];
    w.pending[t.exchange_buffer] &= ~(1u << t.lane);
    t.exchange_buffer = -1;
}

void* warp_exchange_scratch(bool* first) {
    Thread& t = current_thread();
    Warp& w = runner().block.warps[t.warp];
    const int buf = t.exchange_buffer;
    *first = !w.scratch_valid[buf];
    w.scratch_valid[buf] = true;
    return w.scratch[buf];
}

void cp_async(void* dst, const void* src, int bytes, int src_bytes) {
    Thread& t = current_thread();
    t.copies.push_back({dst, src, bytes, src_bytes, t.groups_committed});
}

void cp_async_commit() { current_thread().groups_committed++; }

void cp_async_wait(int pending_groups_allowed) {
    Thread& t = current_thread();
    const int complete_below = t.groups_committed - pending_groups_allowed;
    auto done = std::stable_partition(t.copies.begin(), t.copies.end(),
                                      [&](const AsyncCopy& c) { return c.group >= complete_below; });
    for (auto it = done; it != t.copies.end(); ++it) {
        std::memcpy(it->dst, it->src, size_t(it->src_bytes));
        std::memset(static_cast<char*>(it->dst) + it->src_bytes, 0, size_t(it->bytes - it->src_bytes));
    }
    t.copies.erase(done, t.copies.end());
}

}  // namespace folio::simt
