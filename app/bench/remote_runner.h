#pragma once
// Drives a remote engine (an OpenAI-compatible server, engine/remote) through a workload: submits
// each request at its arrival time while fewer than `concurrency` are in flight, and timestamps
// every streamed chunk as it arrives here. The same RunResult as the in-process runner, so the same
// summary and table; the server's internals (steps, KV pool) are not seen from the client.
#include "app/bench/workload_runner.h"
#include "engine/remote/remote_engine.h"

namespace folio::bench {

RunResult run_remote_workload(remote::RemoteEngine& engine, const Workload& workload, int concurrency);

}  // namespace folio::bench
