// Which kernel table the backend runs on: the fastest this CPU supports, or the one FOLIO_CPU_ISA
// names (ctest runs this file, the greedy parity and the batch invariance tests once per set).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/core/error.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/cpu/kernels.h"
#include "tests/engine/cpu/model_fixture.h"
#include "tests/support/fixtures.h"

namespace folio::cpu {
namespace {

const KernelTable* fastest() {
    for (const char* isa : {"amx", "avx512", "avx2", "generic"})
        if (const KernelTable* t = kernels_for(isa)) return t;
    return nullptr;
}

TEST(KernelSelection, AutoOrUnsetPicksTheFastestTheCpuHas) {
    ASSERT_NE(fastest(), nullptr);
    EXPECT_EQ(&choose_kernels(nullptr), fastest());
    EXPECT_EQ(&choose_kernels(""), fastest());
    EXPECT_EQ(&choose_kernels("auto"), fastest());
}

TEST(KernelSelection, ANamedSetIsUsedOrRefusedWithAReason) {
    for (const char* isa : {"generic", "avx2", "avx512", "amx"}) {
        if (const KernelTable* t = kernels_for(isa)) {
            EXPECT_EQ(&choose_kernels(isa), t);
            EXPECT_STREQ(choose_kernels(isa).isa, isa);
        } else {
            try {
                choose_kernels(isa);
                ADD_FAILURE() << isa << " is missing on this CPU but was accepted";
            } catch (const Error& e) {
                EXPECT_NE(std::string(e.what()).find("this CPU lacks"), std::string::npos) << e.what();
            }
        }
    }
    EXPECT_NE(kernels_for("generic"), nullptr) << "the portable set must exist everywhere";
}

TEST(KernelSelection, AnUnknownNameIsAnError) {
    try {
        choose_kernels("sse9");
        ADD_FAILURE() << "an unknown instruction set was accepted";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("FOLIO_CPU_ISA=sse9"), std::string::npos) << msg;
        EXPECT_NE(msg.find("generic"), std::string::npos) << "the message should list the choices: " << msg;
    }
}

// This process: the table in use is the one its environment asks for, and the backend says so.
TEST(KernelSelection, TheBackendRunsOnTheRequestedSet) {
    const char* env = std::getenv("FOLIO_CPU_ISA");
    const KernelTable& want = choose_kernels(env);
    EXPECT_EQ(&kernels(), &want);
    if (env && *env && std::strcmp(env, "auto") != 0) {
        EXPECT_STREQ(kernels().isa, env);
    }
    auto model = test::load_weights_only(test::fixture_path("models/stories260K"));
    auto backend = make_cpu_backend(*model, {});
    EXPECT_NE(backend->device_name().find(std::string(", ") + want.isa + ")"), std::string::npos) << backend->device_name();
}

}  // namespace
}  // namespace folio::cpu
