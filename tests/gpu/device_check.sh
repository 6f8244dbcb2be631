#!/usr/bin/env bash
# tests/gpu/device_check.sh [OUT_DIR]
#
# Everything about the CUDA backend that needs a real NVIDIA GPU, in one run (issue 7), on a Linux
# machine with a GPU, nvcc, CMake and ninja but possibly none of our Debian libraries and no Qt:
#   1. unpacks the carried .debs (.deps/, made here by tests/gpu/fetch_deps.sh) into a prefix;
#   2. configures and builds the engine, CLIs and device tests (no app) for the present GPU;
#   3. runs every kernel test on the device (tests/simt/*_test.cpp built against the real runtime,
#      plus cuBLAS), compute-sanitizer memcheck on a short generation (racecheck on the kernels
#      that share memory across lanes), end-to-end parity with the CPU backend on stories260K and
#      tiny-awq (teacher-forced logits, in gpu_backend_test);
#   4. benchmarks: folio-bench on dummy:llama-2-7b-awq (batch-1 decode ms/token beside the
#      bandwidth floor measured in the same run; output tokens/s at 1, 8, 64, 256 concurrent
#      sequences) and, where python3 has torch + transformers, the same workload through HF
#      generate() in fp16 (ours / theirs);
# and prints one short table last. OUT_DIR (default: out/device_check) receives summary.txt,
# device_check.log and logs.tar.gz (every step's full log, test XML and JSON): three files, as the
# device tool brings back at most eight. Steps after the tests watch the clock
# (FOLIO_DEVICE_BUDGET_S, default 540 s) and are reported as SKIP when it runs out.
#
# The fixtures are not on the device machine unless the working tree carries them. Before calling
# the device tool, here:
#     tests/gpu/fetch_deps.sh                                  # .deps/ (git-ignored, ~2 MiB)
#     mkdir -p .fixtures && cp -r /work/shared/models .fixtures/   # .fixtures/ (git-ignored, ~17 MiB)
# then run with carry [".deps", ".fixtures"], e.g. command
#     tests/gpu/device_check.sh $OUT
# Environment: FOLIO_FIXTURES (default .fixtures, else ../shared), FOLIO_DEPS (default .deps),
# FOLIO_CUDA_ARCH (default: the GPU's compute capability), FOLIO_BENCH_MODEL (default
# dummy:llama-2-7b-awq), FOLIO_BENCH_INPUT / FOLIO_BENCH_OUTPUT (prompt / output tokens, 128 / 128),
# FOLIO_SKIP_HF=1 to leave out the transformers comparison.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dest=${1:-$root/out/device_check}
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
build=${FOLIO_DEVICE_BUILD:-$root/build-device}
out=$build/device_check_logs  # every log; packed into $dest/logs.tar.gz at the end
rm -rf "$out"
mkdir -p "$out"
deps=${FOLIO_DEPS:-$root/.deps}
if [ -n "${FOLIO_FIXTURES:-}" ]; then fixtures=$FOLIO_FIXTURES
elif [ -d "$root/.fixtures/models" ]; then fixtures=$root/.fixtures
else fixtures=$root/../shared; fi
bench_model=${FOLIO_BENCH_MODEL:-dummy:llama-2-7b-awq}
in_len=${FOLIO_BENCH_INPUT:-128}
out_len=${FOLIO_BENCH_OUTPUT:-128}
jobs=$(nproc 2>/dev/null || echo 4)
budget=${FOLIO_DEVICE_BUDGET_S:-540}
t_start=$(date +%s)
time_left() { [ $(( $(date +%s) - t_start )) -lt "$budget" ]; }

rows=()      # "check|result|detail" for the final table
failed=0
note() { echo "[device_check $(($(date +%s) - t_start))s] $*" | tee -a "$out/device_check.log"; }
row() {      # row CHECK RESULT DETAIL; only FAIL makes the exit status non-zero
  rows+=("$1|$2|$3")
  [ "$2" != FAIL ] || failed=1
}
table() {
  echo
  echo "== device_check: $(date -u +%Y-%m-%dT%H:%MZ), ${gpu_name:-no GPU}, $(( $(date +%s) - t_start )) s =="
  printf '%-34s %-6s %s\n' check result detail
  for r in "${rows[@]}"; do
    IFS='|' read -r c s d <<<"$r"
    printf '%-34s %-6s %s\n' "$c" "$s" "$d"
  done
  echo "logs: $dest/logs.tar.gz"
}
finish() {
  table | tee "$out/summary.txt"
  cp "$out/summary.txt" "$out/device_check.log" "$dest/" 2>/dev/null
  tar -czf "$dest/logs.tar.gz" -C "$out" . 2>/dev/null
  exit "$1"
}

# ---- 1. dependencies --------------------------------------------------------------------------
prefix=$build/deps-prefix
note "unpacking $(ls "$deps"/*.deb 2>/dev/null | wc -l) packages from $deps into $prefix"
if ! ls "$deps"/*.deb >/dev/null 2>&1; then
  row "dependencies" FAIL "no .deb in $deps: run tests/gpu/fetch_deps.sh here and carry .deps"
  finish 1
fi
rm -rf "$prefix"
mkdir -p "$prefix"
for deb in "$deps"/*.deb; do
  if command -v dpkg-deb >/dev/null; then
    dpkg-deb -x "$deb" "$prefix"
  else  # no dpkg: a .deb is an ar archive holding data.tar.*
    (cd "$prefix" && ar x "$deb" && tar -xf data.tar.* && rm -f data.tar.* control.tar.* debian-binary)
  fi
done
libdir=$prefix/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The .pc files say prefix=/usr: the sysroot maps them into the unpacked tree.
export PKG_CONFIG_SYSROOT_DIR=$prefix
export PKG_CONFIG_LIBDIR=$libdir/pkgconfig:$prefix/usr/share/pkgconfig
pkgconfig=$(command -v pkg-config || command -v pkgconf || echo "$prefix/usr/bin/pkgconf")
row "dependencies" PASS "$(ls "$deps"/*.deb | wc -l) .debs unpacked; pkg-config: $pkgconfig"

# ---- 2. configure and build -------------------------------------------------------------------
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
arch=${FOLIO_CUDA_ARCH:-${cap:-89}}
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
note "configuring for sm_$arch (${gpu_name:-no GPU visible}) with $($nvcc_bin --version 2>/dev/null | tail -1)"
t0=$(date +%s)
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOLIO_BUILD_APP=OFF -DFOLIO_CUDA=ON \
     -DCMAKE_CUDA_COMPILER="$nvcc_bin" -DCMAKE_CUDA_ARCHITECTURES="$arch" -DFOLIO_GPU_TESTS=ON \
     -DCMAKE_PREFIX_PATH="$prefix/usr" -DPKG_CONFIG_EXECUTABLE="$pkgconfig" -DFOLIO_FIXTURES="$fixtures" \
     >"$out/configure.log" 2>&1; then
  tail -20 "$out/configure.log"
  row "configure" FAIL "see configure.log"
  finish 1
fi
# Show which copies of the libraries CMake found: the carried prefix, not the system.
grep -E '^(spdlog_DIR|fmt_DIR|nlohmann_json_DIR|GTest_DIR|SENTENCEPIECE_LIBDIR)' "$build/CMakeCache.txt" >>"$out/configure.log"
if ! cmake --build "$build" -j "$jobs" >"$out/build.log" 2>&1; then
  grep -E 'error|FAILED' "$out/build.log" | head -20
  row "build (sm_$arch)" FAIL "see build.log"
  finish 1
fi
t_build=$(( $(date +%s) - t0 ))
row "build (sm_$arch, $jobs jobs)" "$([ $t_build -lt 480 ] && echo PASS || echo SLOW)" "${t_build} s (limit 480 s)"

# ---- 3. the GPU from here on ------------------------------------------------------------------
if [ -z "$gpu_name" ] || ! "$build/tests/gpu/folio-gpu-probe" >"$out/probe.json" 2>"$out/probe.err"; then
  smi=$(command -v nvidia-smi >/dev/null && nvidia-smi -L 2>&1 | head -1 || echo "nvidia-smi not installed")
  note "no usable NVIDIA GPU: $smi; $(cat "$out/probe.err" 2>/dev/null)"
  row "GPU" FAIL "none usable here (nvidia-smi: ${gpu_name:-not found}); everything below needs one"
  finish 3
fi
row "GPU" INFO "$gpu_name, sm_$cap, $(sed -E 's/.*"copy_gbps": ([0-9.]+).*/\1/' "$out/probe.json") GB/s device copy"

for t in elementwise attention gemm sampling cublas backend; do
  bin=$build/tests/gpu/gpu_${t}_test
  t0=$(date +%s)
  if FOLIO_FIXTURES=$fixtures "$bin" --gtest_output=xml:"$out/gpu_${t}_test.xml" >"$out/gpu_${t}_test.log" 2>&1; then
    row "kernel tests: $t" PASS "$(grep -c '^\[       OK' "$out/gpu_${t}_test.log") tests, $(( $(date +%s) - t0 )) s"
  else
    row "kernel tests: $t" FAIL "$(grep -c '^\[  FAILED' "$out/gpu_${t}_test.log") failed; gpu_${t}_test.log"
  fi
done
# Parity lines of the backend test (teacher-forced logits vs the CPU backend).
while IFS= read -r line; do
  what=${line#*] }
  row "parity: ${what%%:*}" INFO "${what#*: }"
done < <(grep '^\[ parity \]' "$out/gpu_backend_test.log" 2>/dev/null)

sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$sanitizer" ]; then
  if FOLIO_FIXTURES=$fixtures "$sanitizer" --tool memcheck --error-exitcode 99 "$build/tests/gpu/gpu_backend_test" \
       --gtest_filter='CudaBackend.GreedyGenerationMatchesTheFixtures' >"$out/memcheck.log" 2>&1; then
    row "memcheck: greedy generation" PASS "$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$out/memcheck.log" | tail -1)"
  else
    row "memcheck: greedy generation" FAIL "$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$out/memcheck.log" | tail -1); memcheck.log"
  fi
  if "$build/app/cli/folio-cli" generate --model "$fixtures/models/stories260K" --prompt "Once upon a time" --max-tokens 8 \
       --raw --backend cuda >"$out/cli_generate.log" 2>&1; then
    if "$sanitizer" --tool memcheck --error-exitcode 99 "$build/app/cli/folio-cli" generate --model "$fixtures/models/stories260K" \
         --prompt "Once upon a time" --max-tokens 16 --raw --backend cuda >"$out/memcheck_cli.log" 2>&1; then
      row "memcheck: folio-cli generate" PASS "$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$out/memcheck_cli.log" | tail -1)"
    else
      row "memcheck: folio-cli generate" FAIL "memcheck_cli.log"
    fi
  else
    row "memcheck: folio-cli generate" SKIP "folio-cli generate --backend cuda does not run yet (cli_generate.log)"
  fi
else
  row "compute-sanitizer" FAIL "not found"
fi

# ---- 4. benchmarks ----------------------------------------------------------------------------
ctx=$(( in_len + out_len / 2 ))  # mean context of a decode step
"$build/tests/gpu/folio-gpu-probe" "$bench_model" --context "$ctx" >"$out/probe_model.json" 2>>"$out/probe.err"
floor=$(sed -nE 's/.*"floor_ms": ([0-9.]+).*/\1/p' "$out/probe_model.json")
bench=$build/app/bench/folio-bench
jget() { sed -nE "s/.*\"$2\": *([0-9.eE+-]+).*/\1/p" "$1" | head -1; }
declare -A ours
if [ -x "$bench" ]; then
  for c in 1 8 64 256; do
    if ! time_left; then row "throughput, $c concurrent" SKIP "time budget (${budget} s) spent"; continue; fi
    n=$(( c < 4 ? 4 : 2 * c ))
    if "$bench" --model "$bench_model" --backend cuda --num-requests "$n" --concurrency "$c" --input-len "$in_len" \
         --output-len "$out_len" --json >"$out/bench_c$c.json" 2>"$out/bench_c$c.log"; then
      ours[$c]=$(jget "$out/bench_c$c.json" output_tokens_per_s)
      if [ "$c" = 1 ]; then
        itl=$(jget "$out/bench_c1.json" itl_ms_p50)
        pct=$(awk -v f="$floor" -v i="$itl" 'BEGIN { if (i > 0) printf "%.0f", 100 * f / i }')
        row "batch-1 decode ($bench_model)" "$([ "${pct:-0}" -ge 80 ] && echo PASS || echo BELOW)" \
            "${itl} ms/token; floor ${floor} ms = $((pct))% of floor (goal >= 80%)"
      fi
      row "throughput, $c concurrent" INFO "${ours[$c]} output tokens/s ($n requests, ${in_len}+${out_len} tokens)"
    else
      row "throughput, $c concurrent" FAIL "folio-bench failed: bench_c$c.log"
    fi
  done
else
  row "folio-bench" FAIL "app/bench built no folio-bench yet (issue 3): benchmarks not run"
  row "bandwidth floor ($bench_model)" INFO "${floor:-?} ms/token at context $ctx (probe_model.json)"
fi
if [ "${FOLIO_SKIP_HF:-0}" != 1 ] && ! time_left; then
  row "HF transformers comparison" SKIP "time budget (${budget} s) spent"
elif [ "${FOLIO_SKIP_HF:-0}" != 1 ] && python3 -c 'import torch, transformers' 2>/dev/null; then
  PYTHONUNBUFFERED=1 python3 "$root/tests/gpu/hf_bench.py" --batch-sizes 1,8,64,256 --input-len "$in_len" \
    --output-len "$out_len" >"$out/hf_bench.json" 2>"$out/hf_bench.log"
  for c in 1 8 64 256; do
    theirs=$(python3 -c "import json,sys; d=json.load(open('$out/hf_bench.json')); print(d.get('$c', {}).get('output_tokens_per_s', 'error'))" 2>/dev/null)
    ratio=$(awk -v a="${ours[$c]:-}" -v b="$theirs" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else print "n/a" }')
    row "HF generate fp16, $c concurrent" INFO "${theirs:-error} tokens/s; ours/theirs $ratio"
  done
else
  row "HF transformers comparison" SKIP "python3 with torch + transformers not available (or FOLIO_SKIP_HF=1)"
fi

# ---- 5. racecheck (slow: last, within the time budget) ------------------------------------------
if [ -x "$sanitizer" ]; then
  for spec in "attention:SimtDecodeAttention.*:SimtPrefillAttention.*" "sampling:SimtSampling.MatchesTheCpuSamplerTokenForToken"; do
    t=${spec%%:*}
    if ! time_left; then row "racecheck: $t" SKIP "time budget (${budget} s) spent"; continue; fi
    if "$sanitizer" --tool racecheck --error-exitcode 99 "$build/tests/gpu/gpu_${t}_test" --gtest_filter="${spec#*:}" \
         >"$out/racecheck_${t}.log" 2>&1; then
      row "racecheck: $t" PASS "$(grep -o 'RACECHECK SUMMARY: [0-9]* hazard[s]* displayed' "$out/racecheck_${t}.log" | tail -1)"
    else
      row "racecheck: $t" FAIL "racecheck_${t}.log"
    fi
  done
fi

finish $failed
