#pragma once
// The engine setup the end-to-end tests share: a fixture model loaded once per process and the CPU
// backend in its exact mode, the mode every comparison with a fixture or a reference asks for (the
// default is the fast int8 mode). Header-only: only tests that link the engine include it.
#include <map>
#include <memory>
#include <string>

#include "engine/backend/backend.h"
#include "engine/cpu/cpu_backend.h"
#include "engine/model/model.h"
#include "tests/support/fixtures.h"

namespace folio::test {

// threads = 0: one per hardware thread. End-to-end tests pass 1: the results do not depend on it, and
// one thread avoids wake-ups on a busy CI machine.
inline BackendOptions exact_cpu(int threads = 0) {
    BackendOptions o;
    o.cpu_activations = CpuActivations::Exact;
    o.num_threads = threads;
    return o;
}

// tests/fixtures/models/NAME, loaded on first use and shared by the process's tests (models are
// immutable once loaded).
inline std::shared_ptr<const Model> fixture_model(const std::string& name) {
    static std::map<std::string, std::shared_ptr<const Model>> loaded;
    auto& m = loaded[name];
    if (!m) m = load_model(fixture_path("models/" + name));
    return m;
}

inline std::shared_ptr<const Model> stories260k() { return fixture_model("stories260K"); }

// The exact one-thread CPU backend of `model`.
inline std::unique_ptr<Backend> exact_cpu_backend(const Model& model) { return make_cpu_backend(model, exact_cpu(1)); }

}  // namespace folio::test
