#!/usr/bin/env bash
# run_long.sh BUILD_FUZZ_DIR [EXECUTIONS] [TARGET...]
# The long fuzz run (a benchmark-style script, not a test): each target of the fuzz build runs until
# it has executed EXECUTIONS inputs (default 1000000), starting from its seeds and the work corpus
# ctest keeps, under ASan and UBSan with the memory limit (-rss_limit_mb=2048, which also fails any
# single allocation above it). Prints a table: executions, seconds, executions per second, corpus
# size, coverage, result. A failing target's crashing input is in WORK/artifacts/: fix the code at
# fault, add a unit test of the fix beside the module's tests, and add the input to the target's
# seeds (corpus/<target>/regression-*) so that every fuzz run replays it.
# FUZZ_MAX_SECONDS=N stops each target after N seconds as well (libFuzzer's -max_total_time); a
# target stopped that way before EXECUTIONS says so in its result column.
set -uo pipefail
build=${1:?usage: run_long.sh BUILD_FUZZ_DIR [EXECUTIONS] [TARGET...]}
runs=${2:-1000000}
max_seconds=${FUZZ_MAX_SECONDS:-0}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(grep -v '^$' "$build/tests/fuzz/targets.txt")
fi
logs=$build/tests/fuzz/long
mkdir -p "$logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

printf '%s, %s, %s runs per target, at most %s s each\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" "$runs" "${max_seconds/#0/unbounded}"
printf '%-22s %12s %9s %9s %8s %10s  %s\n' target executions seconds 'exec/s' corpus coverage result
failed=0
for t in "${targets[@]}"; do
  work=$build/tests/fuzz/work/$t
  mkdir -p "$work/corpus" "$work/artifacts"
  start=$(date +%s%N)
  "$build/tests/fuzz/${t}_fuzzer" -runs="$runs" -max_total_time="$max_seconds" -rss_limit_mb=2048 -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$here/corpus/$t" > "$logs/$t.log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$logs/$t.log" | grep -o '[0-9]*$' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$logs/$t.log" | tail -1 | grep -o '[0-9]*')
  corpus=$(ls "$work/corpus" | wc -l)
  result=ok
  if [ "${execs:-0}" -lt "$runs" ]; then result="ok, stopped by the time bound below $runs"; fi
  if [ $rc -ne 0 ]; then
    result="FAILED (exit $rc; see $logs/$t.log)"
    failed=1
  fi
  rate=$(awk -v n="${execs:-0}" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
  printf '%-22s %12s %9s %9s %8s %10s  %s\n' "$t" "${execs:-?}" "$secs" "$rate" "$corpus" "${cov:-?}" "$result"
done
exit $failed
