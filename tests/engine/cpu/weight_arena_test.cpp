// The arena the CPU backend packs its AWQ weights into: slices in order, 64-byte aligned, on a
// 2 MiB-aligned base; asking past its size is an error, not an overrun; and a matrix packed into an
// arena is byte for byte the one packed alone.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/core/error.h"
#include "engine/cpu/awq_packed.h"
#include "engine/cpu/weight_arena.h"
#include "engine/model/dummy_model.h"

namespace folio::cpu {
namespace {

TEST(WeightArena, SlicesInOrderAlignedAndBounded) {
    WeightArena arena(1000);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(arena.storage().get()) % (size_t(2) << 20), 0u);
    uint8_t* a = arena.take(100);
    uint8_t* b = arena.take(1);
    EXPECT_EQ(a, arena.storage().get());
    EXPECT_EQ(b, a + 128);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 64, 0u);
    EXPECT_EQ(arena.used(), 192u);
    EXPECT_EQ(arena.size(), 1024u);
    EXPECT_NO_THROW(arena.take(1024 - 192));
    EXPECT_THROW(arena.take(1), Error);
}

TEST(WeightArena, PackedIntoAnArenaEqualsPackedAlone) {
    ModelConfig c = dummy_config("tiny-awq");
    ModelWeights w = dummy_weights(c, 5);
    const std::vector<const AwqMatrix*> ms = {&w.layers[0].q_proj.awq, &w.layers[0].up_proj.awq, &w.layers[1].o_proj.awq};
    size_t bytes = 0;
    for (const AwqMatrix* m : ms) bytes += WeightArena::slice_bytes(awq_packed_bytes(*m));
    WeightArena arena(bytes);
    for (const AwqMatrix* m : ms) {
        const AwqPacked alone = pack_awq(*m);
        const AwqPacked in_arena = pack_awq(*m, arena);
        ASSERT_EQ(size_t(alone.block_bytes) * size_t(alone.num_col_blocks), awq_packed_bytes(*m));
        EXPECT_EQ(std::memcmp(alone.data, in_arena.data, awq_packed_bytes(*m)), 0);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(in_arena.data) % 64, 0u);
    }
    EXPECT_EQ(arena.used(), arena.size());
}

}  // namespace
}  // namespace folio::cpu
