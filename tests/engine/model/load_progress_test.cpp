// A model load says what it is doing as it goes (engine/core/load_progress.h): the phases of a
// checkpoint, of a dummy model and of the CPU backend, in order, each counted up to its total (the
// engine adds "allocating the KV cache", seen in tst_ui).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"

namespace folio {
namespace {

struct Seen {
    std::vector<std::string> phases;  // distinct phases in the order they began
    std::vector<LoadProgress> all;
    LoadProgressFn fn() {
        return [this](const LoadProgress& p) {
            if (phases.empty() || phases.back() != p.phase) phases.push_back(p.phase);
            all.push_back(p);
        };
    }
    // Within each phase the count never goes back and the last report is complete when counted.
    void expect_counted_phases_complete() const {
        for (size_t i = 0; i < all.size(); ++i) {
            const LoadProgress& p = all[i];
            EXPECT_LE(p.done, p.total == 0 ? p.done : p.total) << p.phase;
            const bool last_of_phase = i + 1 == all.size() || std::string(all[i + 1].phase) != p.phase;
            if (i > 0 && std::string(all[i - 1].phase) == p.phase) {
                EXPECT_GE(p.done, all[i - 1].done) << p.phase;
            }
            if (last_of_phase && p.total > 0) {
                EXPECT_EQ(p.done, p.total) << p.phase;
            }
        }
    }
};

TEST(LoadProgress, ACheckpointReadsConfigOpensAndMapsEveryLayer) {
    Seen seen;
    LoadOptions o;
    o.progress = seen.fn();
    const auto model = load_model(test::fixture_path("models/stories260K"), o);
    EXPECT_EQ(seen.phases, (std::vector<std::string>{"reading config", "opening the checkpoint", "mapping weights"}));
    seen.expect_counted_phases_complete();
    EXPECT_EQ(seen.all.back().total, model->config.num_layers + 1);  // every layer, then the head
    EXPECT_EQ(std::string(seen.all.back().unit), "layers");
}

TEST(LoadProgress, ADummyModelCountsTheMegabytesItMakes) {
    Seen seen;
    LoadOptions o;
    o.progress = seen.fn();
    load_model("dummy:tiny", o);
    EXPECT_EQ(seen.phases, std::vector<std::string>{"making random weights"});
    seen.expect_counted_phases_complete();
    EXPECT_GT(seen.all.back().total, 0);
    EXPECT_EQ(std::string(seen.all.back().unit), "MiB");
}

TEST(LoadProgress, TheCpuBackendSaysItPreparesWeights) {
    Seen seen;
    BackendOptions b;
    b.num_threads = 1;
    b.progress = seen.fn();
    const auto model = load_model(test::fixture_path("models/tiny-awq"));
    make_cpu_backend(*model, b);
    EXPECT_EQ(seen.phases, std::vector<std::string>{"preparing weights for the CPU"});
    seen.expect_counted_phases_complete();
    EXPECT_EQ(seen.all.back().total, 7 * model->config.num_layers + 1);  // every matrix, the head last
    EXPECT_EQ(std::string(seen.all.back().unit), "matrices");
}

}  // namespace
}  // namespace folio
