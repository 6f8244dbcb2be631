// Tests of the SIMT harness itself: the guarantees every kernel test relies on.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/core/fp8.h"
#include "kernels/common/device_utils.cuh"
#include "kernels/common/launch.cuh"
#include "kernels/common/ptx.cuh"
#include "simt_launch.h"
#include "support/simt_test_util.h"

namespace folio::cuda {
namespace {

using test::DeviceArray;

// Each thread writes its slot, then reads its neighbour's after the barrier.
__global__ void barrier_kernel(int* out) {
    int* s = dynamic_smem<int>();
    const int t = int(threadIdx.x), n = int(blockDim.x);
    s[t] = t * 10 + int(blockIdx.x);
    __syncthreads();
    out[blockIdx.x * n + t] = s[(t + 1) % n];
}

// The same without the barrier: on the device a race; here the neighbour's slot may still be poison.
__global__ void missing_barrier_kernel(int* out) {
    int* s = dynamic_smem<int>();
    const int t = int(threadIdx.x), n = int(blockDim.x);
    s[t] = t;
    out[t] = s[(t + 1) % n];
}

TEST(SimtHarness, SyncthreadsOrdersSharedMemoryInEverySchedule) {
    test::for_each_schedule([](const char*) {
        DeviceArray<int> out(3 * 96);
        out.poison();
        launch(barrier_kernel, dim3(3), dim3(96), 96 * sizeof(int), nullptr, out.get());
        const auto v = out.download();
        for (int b = 0; b < 3; ++b)
            for (int t = 0; t < 96; ++t) ASSERT_EQ(v[size_t(b * 96 + t)], ((t + 1) % 96) * 10 + b) << b << " " << t;
    });
}

TEST(SimtHarness, ThreadsInterleaveOnlyAtBarriersSoMissingBarriersShow) {
    DeviceArray<int> out(64);
    simt::options().schedule = simt::Schedule::Forward;
    launch(missing_barrier_kernel, dim3(1), dim3(64), 64 * sizeof(int), nullptr, out.get());
    // Forward order runs thread 0 to its end before thread 1 starts: it reads poisoned shared memory.
    EXPECT_EQ(out.download()[0], -1);
    simt::options().schedule = simt::Schedule::Reverse;
    launch(missing_barrier_kernel, dim3(1), dim3(64), 64 * sizeof(int), nullptr, out.get());
    EXPECT_EQ(out.download()[0], 1);
    EXPECT_EQ(out.download()[63], -1);
    simt::options().schedule = simt::Schedule::Forward;
}

__global__ void shuffle_kernel(int* out) {
    const int lane = int(threadIdx.x) & 31;
    const int v = lane * 3 + 1;
    int* o = out + threadIdx.x * 8;
    o[0] = __shfl_sync(kFullMask, v, 5);                 // broadcast lane 5
    o[1] = __shfl_xor_sync(kFullMask, v, 1);             // pair swap
    o[2] = __shfl_down_sync(kFullMask, v, 3);            // from lane+3, own value past the end
    o[3] = __shfl_up_sync(kFullMask, v, 2);              // from lane-2, own value before the start
    o[4] = __shfl_sync(kFullMask, v, 2, 8);              // lane 2 of each segment of 8
    o[5] = __shfl_down_sync(kFullMask, v, 4, 8);         // within segments of 8
    float s = float(lane);
    for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(kFullMask, s, d);
    o[6] = int(s);                                       // butterfly sum 0..31
    o[7] = __shfl_xor_sync(kFullMask, v, 4, 4);          // later segments out of reach, earlier ones not
}

TEST(SimtHarness, ShufflesFollowTheProgrammingGuide) {
    test::for_each_schedule([](const char*) {
        DeviceArray<int> out(64 * 8);
        out.poison();
        launch(shuffle_kernel, dim3(1), dim3(64), 0, nullptr, out.get());
        const auto o = out.download();
        for (int t = 0; t < 64; ++t) {
            const int lane = t & 31;
            auto val = [](int l) { return l * 3 + 1; };
            const int* r = &o[size_t(t) * 8];
            EXPECT_EQ(r[0], val(5));
            EXPECT_EQ(r[1], val(lane ^ 1));
            EXPECT_EQ(r[2], lane + 3 < 32 ? val(lane + 3) : val(lane));
            EXPECT_EQ(r[3], lane >= 2 ? val(lane - 2) : val(lane));
            EXPECT_EQ(r[4], val((lane / 8) * 8 + 2));
            EXPECT_EQ(r[5], (lane % 8) + 4 < 8 ? val(lane + 4) : val(lane));
            EXPECT_EQ(r[6], 31 * 32 / 2);
            EXPECT_EQ(r[7], (lane ^ 4) > lane ? val(lane) : val(lane ^ 4));
        }
    });
}

__global__ void vote_kernel(unsigned* out) {
    const int lane = int(threadIdx.x) & 31;
    out[threadIdx.x * 4 + 0] = __ballot_sync(kFullMask, lane % 3 == 0);
    out[threadIdx.x * 4 + 1] = unsigned(__any_sync(kFullMask, lane == 17));
    out[threadIdx.x * 4 + 2] = unsigned(__all_sync(kFullMask, lane < 31));
    unsigned half_ballot = 0;
    if (lane < 16) half_ballot = __ballot_sync(0x0000ffffu, lane & 1);  // a partial mask, inside the branch
    out[threadIdx.x * 4 + 3] = half_ballot;
}

TEST(SimtHarness, VotesAndPartialMasks) {
    DeviceArray<unsigned> out(32 * 4);
    launch(vote_kernel, dim3(1), dim3(32), 0, nullptr, out.get());
    const auto o = out.download();
    unsigned every_third = 0;
    for (int l = 0; l < 32; l += 3) every_third |= 1u << l;
    for (int t = 0; t < 32; ++t) {
        EXPECT_EQ(o[size_t(t) * 4 + 0], every_third);
        EXPECT_EQ(o[size_t(t) * 4 + 1], 1u);
        EXPECT_EQ(o[size_t(t) * 4 + 2], 0u);
        EXPECT_EQ(o[size_t(t) * 4 + 3], t < 16 ? 0xaaaau : 0u);
    }
}

__global__ void atomic_kernel(int* counter, int* maxv, float* fsum, unsigned* cas_counter) {
    const int gid = int(blockIdx.x * blockDim.x + threadIdx.x);
    atomicAdd(counter, 1);
    atomicMax(maxv, gid * 7 % 1000);
    atomicAdd(fsum, 0.5f);
    unsigned old = *cas_counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(cas_counter, assumed, assumed + 2u);
    } while (old != assumed);
    __syncthreads();
}

TEST(SimtHarness, AtomicsAcrossBlocks) {
    DeviceArray<int> counter(std::vector<int>{0}), maxv(std::vector<int>{-1});
    DeviceArray<float> fsum(std::vector<float>{0.0f});
    DeviceArray<unsigned> cas(std::vector<unsigned>{0});
    launch(atomic_kernel, dim3(5), dim3(64), 0, nullptr, counter.get(), maxv.get(), fsum.get(), cas.get());
    EXPECT_EQ(counter.download()[0], 320);
    int expect_max = 0;
    for (int g = 0; g < 320; ++g) expect_max = std::max(expect_max, g * 7 % 1000);
    EXPECT_EQ(maxv.download()[0], expect_max);
    EXPECT_EQ(fsum.download()[0], 160.0f);
    EXPECT_EQ(cas.download()[0], 640u);
}

__global__ void block_reduce_kernel(const float* in, float* out) {
    __shared__ float scratch[32];
    const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    const float s = block_sum(v, scratch);
    const float m = block_max(v, scratch);
    const int c = __syncthreads_count(v > 0.0f);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = s;
        out[blockIdx.x * 3 + 1] = m;
        out[blockIdx.x * 3 + 2] = float(c);
    }
}

TEST(SimtHarness, BlockReductionsAndSyncthreadsCount) {
    test::for_each_schedule([](const char*) {
        const auto in = test::random_floats(4 * 160, -1.0f, 1.0f, 7);
        DeviceArray<float> din(in), out(12);
        out.poison();
        launch(block_reduce_kernel, dim3(4), dim3(160), 0, nullptr, din.get(), out.get());
        const auto o = out.download();
        for (int b = 0; b < 4; ++b) {
            double s = 0;
            float m = -INFINITY;
            int c = 0;
            for (int t = 0; t < 160; ++t) {
                const float v = in[size_t(b * 160 + t)];
                s += v;
                m = std::max(m, v);
                c += v > 0.0f;
            }
            EXPECT_NEAR(o[size_t(b) * 3], s, 1e-4);
            EXPECT_EQ(o[size_t(b) * 3 + 1], m);
            EXPECT_EQ(o[size_t(b) * 3 + 2], float(c));
        }
    });
}

__global__ void smem_poison_kernel(float* out) {
    float* s = dynamic_smem<float>();
    // Read before any write: every block must see fresh poison, not the previous block's data.
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
    __syncthreads();
    s[threadIdx.x] = 1.0f;
}

TEST(SimtHarness, DynamicSharedMemoryIsPoisonedPerBlock) {
    DeviceArray<float> out(2 * 32);
    launch(smem_poison_kernel, dim3(2), dim3(32), 32 * sizeof(float), nullptr, out.get());
    for (float v : out.download()) EXPECT_TRUE(std::isnan(v));
}

__global__ void deadlock_kernel(int* out) {
    if (threadIdx.x == 0) out[0] = __shfl_sync(kFullMask, 1, 0);  // waits for lanes that never come
    else __syncthreads();
}

__global__ void mask_mismatch_kernel(int* out) {
    const unsigned mask = threadIdx.x == 3 ? 0x0000ffffu : kFullMask;
    out[threadIdx.x] = __shfl_sync(mask, int(threadIdx.x), 0);
}

__global__ void bad_source_kernel(int* out) {
    if (threadIdx.x < 16) out[threadIdx.x] = __shfl_sync(0x0000ffffu, int(threadIdx.x), 20);
}

TEST(SimtHarness, DetectsDeadlocksMaskMismatchesAndBadShuffles) {
    DeviceArray<int> out(64);
    try {
        launch(deadlock_kernel, dim3(1), dim3(64), 0, nullptr, out.get());
        FAIL() << "deadlock not detected";
    } catch (const simt::SimtError& e) {
        EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what();
    }
    try {
        launch(mask_mismatch_kernel, dim3(1), dim3(32), 0, nullptr, out.get());
        FAIL() << "mask mismatch not detected";
    } catch (const simt::SimtError& e) {
        EXPECT_NE(std::string(e.what()).find("mask"), std::string::npos) << e.what();
    }
    try {
        launch(bad_source_kernel, dim3(1), dim3(32), 0, nullptr, out.get());
        FAIL() << "shuffle from outside the mask not detected";
    } catch (const simt::SimtError& e) {
        EXPECT_NE(std::string(e.what()).find("not in the mask"), std::string::npos) << e.what();
    }
    // The harness is usable again after a failed launch.
    DeviceArray<int> ok(96);
    launch(barrier_kernel, dim3(1), dim3(96), 96 * sizeof(int), nullptr, ok.get());
    EXPECT_EQ(ok.download()[0], 10);
}

__global__ void big_smem_kernel(float* out) {
    float* s = dynamic_smem<float>();
    s[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];
}

TEST(SimtHarness, SharedMemoryAbove48KiBNeedsTheAttribute) {
    DeviceArray<float> out(32);
    const size_t bytes = 64 * 1024;
    EXPECT_THROW(launch(big_smem_kernel, dim3(1), dim3(32), bytes, nullptr, out.get()), simt::SimtError);
    allow_dynamic_smem(big_smem_kernel, bytes);
    launch(big_smem_kernel, dim3(1), dim3(32), bytes, nullptr, out.get());
    EXPECT_EQ(out.download()[5], 2.0f);
    EXPECT_THROW(launch(barrier_kernel, dim3(1), dim3(2048), 0, nullptr, nullptr), simt::SimtError);
}

// A 16x16 A (row-major) times a 16x8 B stored [n][k], through ldmatrix and mma, into D (row-major).
__global__ void mma_kernel(const __half* A, const __half* Bnk, const __half* Bkn, const float* C, float* D, float* D2) {
    __shared__ __align__(16) __half sa[16][16];
    __shared__ __align__(16) __half sb[8][16];
    __shared__ __align__(16) __half sbt[16][8];
    const int lane = int(threadIdx.x);
    for (int i = lane; i < 256; i += 32) sa[i / 16][i % 16] = A[i];
    for (int i = lane; i < 128; i += 32) {
        sb[i / 16][i % 16] = Bnk[i];
        sbt[i / 8][i % 8] = Bkn[i];
    }
    __syncwarp();
    uint32_t a[4], b[2], bt4[4];
    // A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
    ptx::ldmatrix_x4(a, &sa[(lane % 8) + ((lane / 8) & 1) * 8][(lane / 16) * 8]);
    // B [n][k]: matrices (n 0-7, k 0-7), (n 0-7, k 8-15).
    ptx::ldmatrix_x2(b, &sb[lane % 8][((lane / 8) & 1) * 8]);
    // B [k][n] transposed: matrices (k 0-7), (k 8-15); x4 repeats them for lanes 16-31.
    ptx::ldmatrix_x4_trans(bt4, &sbt[(lane % 8) + ((lane / 8) & 1) * 8][0]);
    const int g = lane / 4, t = lane % 4;
    float c[4], d[4], d2[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)];
    ptx::mma_m16n8k16_f16(d, a, b, c);
    const uint32_t bt[2] = {bt4[0], bt4[1]};
    ptx::mma_m16n8k16_f16(d2, a, bt, c);
    for (int i = 0; i < 4; ++i) {
        D[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)] = d[i];
        D2[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)] = d2[i];
    }
}

TEST(SimtHarness, MmaAndLdmatrixFollowThePtxFragmentLayouts) {
    const auto A = test::round_to_half(test::random_floats(256, -1, 1, 1));
    const auto B = test::round_to_half(test::random_floats(128, -1, 1, 2));  // B[k][n], 16x8
    const auto C = test::random_floats(128, -1, 1, 3);
    std::vector<float> Bnk(128);
    for (int k = 0; k < 16; ++k)
        for (int n = 0; n < 8; ++n) Bnk[size_t(n * 16 + k)] = B[size_t(k * 8 + n)];
    DeviceArray<__half> dA(test::to_half(A)), dBnk(test::to_half(Bnk)), dBkn(test::to_half(B));
    DeviceArray<float> dC(C), dD(128), dD2(128);
    dD.poison();
    dD2.poison();
    launch(mma_kernel, dim3(1), dim3(32), 0, nullptr, dA.get(), dBnk.get(), dBkn.get(), dC.get(), dD.get(), dD2.get());
    std::vector<float> ref(128);
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
            double s = C[size_t(m * 8 + n)];
            for (int k = 0; k < 16; ++k) s += double(A[size_t(m * 16 + k)]) * B[size_t(k * 8 + n)];
            ref[size_t(m * 8 + n)] = float(s);
        }
    EXPECT_TRUE(test::all_close(dD.download(), ref, 1e-5f, 1e-5f));
    EXPECT_TRUE(test::all_close(dD2.download(), ref, 1e-5f, 1e-5f));
}

// E4M3 codes: A 16x32 (row-major bytes) and B stored [n][k] (8x32 bytes), once through ldmatrix as
// the FP8 GEMM loads them (8-bit fragments are rows of 16 bytes read as b16 pairs) and once with the
// fragments packed by hand from the PTX ISA's layout for m16n8k32 8-bit types.
__global__ void mma_e4m3_kernel(const uint8_t* A, const uint8_t* Bnk, const float* C, float* D, float* D2) {
    __shared__ __align__(16) uint8_t sa[16][32];
    __shared__ __align__(16) uint8_t sb[8][32];
    const int lane = int(threadIdx.x);
    for (int i = lane; i < 512; i += 32) sa[i / 32][i % 32] = A[i];
    for (int i = lane; i < 256; i += 32) sb[i / 32][i % 32] = Bnk[i];
    __syncwarp();
    uint32_t a[4], b[2];
    ptx::ldmatrix_x4(a, &sa[(lane % 8) + ((lane / 8) & 1) * 8][(lane / 16) * 16]);
    ptx::ldmatrix_x2(b, &sb[lane % 8][((lane / 8) & 1) * 16]);
    const int g = lane / 4, t = lane % 4;
    uint32_t ah[4], bh[2];
    for (int i = 0; i < 4; ++i) memcpy(&ah[i], &sa[g + (i & 1) * 8][4 * t + (i >= 2 ? 16 : 0)], 4);
    for (int i = 0; i < 2; ++i) memcpy(&bh[i], &sb[g][4 * t + 16 * i], 4);
    float c[4], d[4], d2[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)];
    ptx::mma_m16n8k32_e4m3(d, a, b, c);
    ptx::mma_m16n8k32_e4m3(d2, ah, bh, c);
    for (int i = 0; i < 4; ++i) {
        D[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)] = d[i];
        D2[(g + (i >= 2 ? 8 : 0)) * 8 + t * 2 + (i & 1)] = d2[i];
    }
}

TEST(SimtHarness, MmaE4m3FollowsThePtx8BitFragmentLayout) {
    std::vector<uint8_t> A(512), B(256);
    const auto av = test::random_floats(512, -20, 20, 11), bv = test::random_floats(256, -3, 3, 12);
    for (size_t i = 0; i < A.size(); ++i) A[i] = f32_to_fp8_e4m3(av[i]);
    for (size_t i = 0; i < B.size(); ++i) B[i] = f32_to_fp8_e4m3(bv[i]);
    const auto C = test::random_floats(128, -1, 1, 13);
    DeviceArray<uint8_t> dA(A), dB(B);
    DeviceArray<float> dC(C), dD(128), dD2(128);
    dD.poison();
    dD2.poison();
    launch(mma_e4m3_kernel, dim3(1), dim3(32), 0, nullptr, dA.get(), dB.get(), dC.get(), dD.get(), dD2.get());
    std::vector<float> ref(128);
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
            double s = C[size_t(m * 8 + n)];
            for (int k = 0; k < 32; ++k) s += double(fp8_e4m3_to_f32(A[size_t(m * 32 + k)])) * fp8_e4m3_to_f32(B[size_t(n * 32 + k)]);
            ref[size_t(m * 8 + n)] = float(s);
        }
    EXPECT_TRUE(test::all_close(dD.download(), ref, 1e-4f, 1e-5f));
    EXPECT_EQ(dD.download(), dD2.download());
}

__global__ void cp_async_kernel(const float* src, float* before, float* after) {
    float* s = dynamic_smem<float>();
    const int t = int(threadIdx.x);
    ptx::cp_async_16(s + 4 * t, src + 4 * t, true);
    ptx::cp_async_commit();
    ptx::cp_async_16(s + 128 + 4 * t, src, false);  // zero-fill
    ptx::cp_async_commit();
    before[t] = s[4 * t];  // not yet waited for: still poison
    ptx::cp_async_wait<1>();  // the first group has landed, the second may not have
    after[2 * t] = s[4 * t + 1];
    ptx::cp_async_wait<0>();
    after[2 * t + 1] = s[128 + 4 * t + 2];
}

TEST(SimtHarness, CpAsyncLandsOnlyAfterTheWait) {
    const auto src = test::random_floats(128, 0, 1, 4);
    DeviceArray<float> dsrc(src), before(32), after(64);
    launch(cp_async_kernel, dim3(1), dim3(32), 256 * sizeof(float), nullptr, dsrc.get(), before.get(), after.get());
    const auto b = before.download(), a = after.download();
    for (int t = 0; t < 32; ++t) {
        EXPECT_TRUE(std::isnan(b[size_t(t)]));
        EXPECT_EQ(a[size_t(2 * t)], src[size_t(4 * t + 1)]);
        EXPECT_EQ(a[size_t(2 * t + 1)], 0.0f);
    }
}

__global__ void add_kernel(const float* in, float* out, float v) { out[threadIdx.x] = in[threadIdx.x] + v; }

TEST(SimtHarness, StreamCaptureRecordsAndReplays) {
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    std::vector<float> host_in(32, 1.0f), host_out(32, 0.0f);
    DeviceArray<float> din(32), dout(32);
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudaMemcpyAsync(din.get(), host_in.data(), 32 * sizeof(float), cudaMemcpyHostToDevice, s);
    launch(add_kernel, dim3(1), dim3(32), 0, s, din.get(), dout.get(), 2.0f);
    cudaMemcpyAsync(host_out.data(), dout.get(), 32 * sizeof(float), cudaMemcpyDeviceToHost, s);
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, 16), cudaErrorStreamCaptureUnsupported);  // forbidden while capturing
    EXPECT_EQ(host_out[0], 0.0f);                                       // nothing ran yet
    cudaGraph_t g;
    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    cudaGetLastError();
    cudaGraphExec_t exec;
    ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    EXPECT_EQ(host_out[7], 3.0f);
    host_in.assign(32, 10.0f);  // same address, new contents: the replay reads them
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    EXPECT_EQ(host_out[7], 12.0f);
    // A synchronisation inside a capture invalidates it, as on the device.
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    cudaGraph_t g2;
    EXPECT_EQ(cudaStreamEndCapture(s, &g2), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
}

}  // namespace
}  // namespace folio::cuda
