#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SEEDS WORK [libFuzzer options...]
# One bounded run of a fuzz target, as ctest does it: starts from the seed corpus (read only) and a
# work corpus of its own (kept between runs in the build folder), writes any crashing input next to
# the work corpus, and fails when libFuzzer found a crash, a sanitizer report, a leak, a timeout or
# an allocation over the memory limit.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3
shift 3
mkdir -p "$work/corpus" "$work/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$fuzzer" -timeout=30 -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "$seeds"
