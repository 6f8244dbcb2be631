#pragma once
// How far a model load has come, for a progress display that says what is happening: the phase in
// words and how far through it. Reported from the loading thread by load_model (reading config,
// opening the checkpoint, mapping weights or making random ones) and by the backend (preparing
// weights for the CPU, uploading to the GPU).
#include <cstdint>
#include <functional>

namespace folio {

struct LoadProgress {
    const char* phase = "";  // "reading config", "mapping weights", "uploading to GPU", ...
    int64_t done = 0;        // units of this phase finished
    int64_t total = 0;       // 0: this phase is not counted (show it as busy)
    const char* unit = "";   // "layers", "MiB", "files"

    float fraction() const { return total > 0 ? float(double(done) / double(total)) : 0.0f; }
};

using LoadProgressFn = std::function<void(const LoadProgress&)>;

// Reports `phase` as `done` of `total` when a callback is set (a no-op otherwise).
inline void report(const LoadProgressFn& fn, const char* phase, int64_t done = 0, int64_t total = 0, const char* unit = "") {
    if (fn) fn(LoadProgress{phase, done, total, unit});
}

}  // namespace folio
