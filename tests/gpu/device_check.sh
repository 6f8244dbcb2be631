#!/usr/bin/env bash
# tests/gpu/device_check.sh [OUT_DIR]
#
# Everything about the CUDA backend that needs a real NVIDIA GPU, in one run, on a Linux
# machine with a GPU, nvcc, CMake and ninja but possibly none of our Debian libraries and no Qt.
# tests/gpu/README.md says how to call it through the device tool and what to record.
#   1. unpacks the carried .debs (.deps/, made by tests/gpu/fetch_deps.sh) into a private prefix;
#   2. configures and builds, without the app, the CLIs, the device tests and the probe for the
#      present GPU, and checks that every library came from that prefix (not from the system);
#   3. runs the device tests (ctest -L gpu: tests/simt/*_test.cpp against the real runtime, cuBLAS,
#      end-to-end parity with the CPU backend on stories260K and tiny-awq, teacher-forced logits) and
#      folio-cli generate on both backends;
#   4. benchmarks: folio-bench on dummy:llama-2-7b-awq on CUDA (batch-1 decode ms/token beside the
#      bandwidth floor measured in the same run; output tokens/s at 1, 8, 64, 256 concurrent
#      sequences) and, where python3 has torch + transformers, HF generate() in fp16
#      (tests/gpu/hf_bench.py) on the same workload;
#   5. compute-sanitizer memcheck on a short generation;
#   6. folio-bench on the CPU backend at 1 and 8 (fewer requests, 32 new tokens), for the side-by-side;
#   7. racecheck on the kernels that share memory across lanes, while time is left;
# then prints two short tables last: the checks, and the benchmarks side by side.
#
# OUT_DIR (default out/device_check) receives summary.txt (the tables), bench.tsv, device_check.log
# and logs.tar.gz (every step's full log, test XML and JSON).
#
# Environment:
#   FOLIO_DEVICE_DRY_RUN=1   stop after the build and the isolation check (no GPU needed); exit 0
#                            when both passed. Proves the build from the .debs on a machine without one.
#   FOLIO_DEVICE_BUDGET_S    seconds for the whole run (default 510); later steps are SKIPped, and
#                            every step is cut off, so the run ends inside it
#   FOLIO_DEVICE_BUILD_LIMIT_S  the build's own limit (default 420 s; a dry run on 2 cores needs more)
#   FOLIO_FIXTURES           default tests/fixtures (in the repository, so it travels with the tree)
#   FOLIO_DEPS               default .deps
#   FOLIO_CUDA_ARCH          default the GPU's compute capability (89 without a GPU)
#   FOLIO_BENCH_MODEL        default dummy:llama-2-7b-awq
#   FOLIO_BENCH_INPUT/OUTPUT prompt / output tokens per request (128 / 128; CPU runs use 32 output)
#   FOLIO_SKIP_HF=1          leave out the transformers comparison
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
fixtures=${FOLIO_FIXTURES:-$root/tests/fixtures}
fixtures=$(cd "$fixtures" 2>/dev/null && pwd || echo "$fixtures")
dry_run=${FOLIO_DEVICE_DRY_RUN:-0}
bench_model=${FOLIO_BENCH_MODEL:-dummy:llama-2-7b-awq}
in_len=${FOLIO_BENCH_INPUT:-128}
out_len=${FOLIO_BENCH_OUTPUT:-128}
cpu_out_len=32
jobs=$(nproc 2>/dev/null || echo 4)
budget=${FOLIO_DEVICE_BUDGET_S:-510}
t_start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - t_start) )); }
# limited SECONDS CMD...: CMD, cut off after SECONDS or when the budget runs out (exit 124).
limited() {
  local s=$1; shift
  local l; l=$(left)
  [ "$l" -lt "$s" ] && s=$l
  [ "$s" -lt 5 ] && return 124
  timeout -k 10 "$s" "$@"
}

rows=()      # "check|result|detail" for the final table
failed=0
note() { echo "[device_check $(($(date +%s) - t_start))s] $*" | tee -a "$out/device_check.log"; }
row() {      # row CHECK RESULT DETAIL; only FAIL makes the exit status non-zero
  rows+=("$1|$2|$3")
  [ "$2" != FAIL ] || failed=1
  note "$2 $1: $3"
}
declare -A cuda_tps=() cpu_tps=() hf_tps=()
bench_table() {
  [ ${#cuda_tps[@]} -gt 0 ] || [ ${#cpu_tps[@]} -gt 0 ] || [ ${#hf_tps[@]} -gt 0 ] || return 0
  echo
  echo "== output tokens/s, $bench_model, ${in_len}-token prompts (CUDA and HF: $out_len new tokens; CPU: $cpu_out_len) =="
  printf '%-11s %12s %12s %12s %9s %9s\n' concurrent "folio cuda" "folio cpu" "HF fp16" cuda/cpu cuda/HF
  printf 'concurrent\tfolio_cuda\tfolio_cpu\thf_fp16\n' >"$dest/bench.tsv"
  for c in 1 8 64 256; do
    local a=${cuda_tps[$c]:--} b=${cpu_tps[$c]:--} h=${hf_tps[$c]:--}
    printf '%-11s %12s %12s %12s %9s %9s\n' "$c" "$a" "$b" "$h" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else print "-" }')" \
      "$(awk -v a="$a" -v b="$h" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else print "-" }')"
    printf '%s\t%s\t%s\t%s\n' "$c" "$a" "$b" "$h" >>"$dest/bench.tsv"
  done
}
table() {
  echo
  echo "== device_check: $(date -u +%Y-%m-%dT%H:%MZ), ${gpu_name:-no GPU}, $(git -C "$root" rev-parse --short HEAD 2>/dev/null), $(( $(date +%s) - t_start )) s =="
  printf '%-34s %-6s %s\n' check result detail
  for r in "${rows[@]}"; do
    IFS='|' read -r c s d <<<"$r"
    printf '%-34s %-6s %s\n' "$c" "$s" "$d"
  done
  bench_table
}
finish() {
  table | tee "$out/summary.txt"
  cp "$out/summary.txt" "$out/device_check.log" "$dest/" 2>/dev/null
  tar -czf "$dest/logs.tar.gz" -C "$out" . 2>/dev/null
  echo "full logs: $dest/logs.tar.gz; exit $1"
  exit "$1"
}

# ---- 1. dependencies --------------------------------------------------------------------------
# tests/gpu/fetch_deps.sh's tree of Debian packages (the build's -dev packages, their libraries and
# those libraries' own, pkg-config itself), and with --fixtures the fixtures, both packed with xz.
needed=(libsentencepiece-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libpcre2-dev libicu-dev libsimdjson-dev
        libcurl4-openssl-dev libssl-dev libcpp-httplib-dev libgtest-dev libgmock-dev pkgconf-bin)
prefix=$build/deps-prefix
missing=()
for p in "${needed[@]}"; do grep -q "^$p " "$deps/packages.txt" 2>/dev/null || missing+=("$p"); done
if [ ! -f "$deps/prefix.tar.xz" ] || [ ${#missing[@]} -gt 0 ]; then
  row "dependencies" FAIL "$deps/prefix.tar.xz lacks ${missing[*]:-everything} (run tests/gpu/fetch_deps.sh and carry .deps)"
  finish 1
fi
rm -rf "$prefix"
mkdir -p "$prefix"
if ! xz -dc "$deps/prefix.tar.xz" | tar -xf - -C "$prefix"; then
  row "dependencies" FAIL "unpacking $deps/prefix.tar.xz failed"
  finish 1
fi
if [ ! -f "$fixtures/models/stories260K/config.json" ] && [ -f "$deps/fixtures.tar.xz" ]; then
  # The tree came without tests/fixtures (too large for the device tool): the packed copy instead.
  fixtures=$build/fixtures
  rm -rf "$fixtures" && mkdir -p "$fixtures" && xz -dc "$deps/fixtures.tar.xz" | tar -xf - -C "$fixtures"
fi
libdir=$prefix/usr/lib/x86_64-linux-gnu
# (Some bookworm packages still install into /lib: zlib, zstd, libcom-err, libkeyutils.)
export LD_LIBRARY_PATH=$libdir:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The .pc files say prefix=/usr: the sysroot maps them into the unpacked tree; LIBDIR replaces the
# system's search path, so only the prefix's .pc files are seen.
export PKG_CONFIG_SYSROOT_DIR=$prefix
export PKG_CONFIG_LIBDIR=$libdir/pkgconfig:$prefix/usr/share/pkgconfig
unset PKG_CONFIG_PATH
pkgconfig=$prefix/usr/bin/pkgconf  # the carried one: the machine may have no pkg-config
row "dependencies" PASS "$(wc -l <"$deps/packages.txt") Debian packages unpacked into ${prefix#"$root"/}"

if [ -f "$fixtures/models/stories260K/config.json" ] && [ -f "$fixtures/models/tiny-awq/config.json" ]; then
  row "fixtures" PASS "$fixtures"
else  # the device tests and the CLI check fail without them; the benchmarks still run
  row "fixtures" FAIL "no models/stories260K and models/tiny-awq in $fixtures (tests/fixtures is part of the repository)"
fi

# ---- 2. configure and build -------------------------------------------------------------------
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
arch=${FOLIO_CUDA_ARCH:-${cap:-89}}
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
note "cmake $(cmake --version | head -1 | cut -d' ' -f3), $("$nvcc_bin" --version 2>/dev/null | tail -1), $(c++ --version | head -1)"
note "configuring for sm_$arch (${gpu_name:-no GPU visible}), fixtures $fixtures"
t0=$(date +%s)
if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOLIO_BUILD_APP=OFF -DFOLIO_CUDA=ON \
     -DCMAKE_CUDA_COMPILER="$nvcc_bin" -DCMAKE_CUDA_ARCHITECTURES="$arch" -DFOLIO_GPU_TESTS=ON \
     -DCMAKE_PREFIX_PATH="$prefix/usr" -DPKG_CONFIG_EXECUTABLE="$pkgconfig" -DFOLIO_FIXTURES="$fixtures" \
     >"$out/configure.log" 2>&1; then
  tail -20 "$out/configure.log"
  row "configure" FAIL "see configure.log"
  finish 1
fi
if ! limited "${FOLIO_DEVICE_BUILD_LIMIT_S:-420}" cmake --build "$build" --target folio_device_check -j "$jobs" >"$out/build.log" 2>&1; then
  grep -E 'error|FAILED' "$out/build.log" | head -20
  row "build (sm_$arch)" FAIL "see build.log (cut off after $(( $(date +%s) - t0 )) s?)"
  finish 1
fi
t_build=$(( $(date +%s) - t0 ))
row "build (sm_$arch, $jobs jobs)" PASS "${t_build} s, configure included"

# Every third-party header and library must come from the prefix: the machine may have none, and
# where it has some (a dry run here), using them would prove nothing about the .debs.
cached='spdlog_DIR|fmt_DIR|nlohmann_json_DIR|GTest_DIR|(SENTENCEPIECE|PCRE2|ICU|SIMDJSON|HTTPLIB)_(INCLUDE_DIRS|LIBDIR)|CURL_INCLUDE_DIR|CURL_LIBRARY_RELEASE|OPENSSL_(INCLUDE_DIR|CRYPTO_LIBRARY|SSL_LIBRARY)'
{
  grep -E "^($cached|PKG_CONFIG_EXECUTABLE)[:=]" "$build/CMakeCache.txt"
} >"$out/isolation.log"
outside=$(grep -E "^($cached)[:=]" \
            "$build/CMakeCache.txt" | grep -v "$prefix" | cut -d: -f1)
# Headers actually read (ninja's dependency log) and libraries actually linked (build.ninja).
sys_headers=$(ninja -C "$build" -t deps 2>/dev/null |
              grep -E '^ +/usr/(local/)?include/(spdlog|fmt|nlohmann|sentencepiece|gtest|gmock|unicode|curl|openssl|x86_64-linux-gnu/(curl|openssl|unicode))/|^ +/usr/(local/)?include/(pcre2|simdjson|httplib)\.h' | sort -u)
# (build.ninja names files inside the build folder, the prefix among them, relative to it.)
libs='(spdlog|fmt|sentencepiece|gtest|gmock|pcre2|icu|simdjson|curl|ssl|crypto|cpp-httplib)'
sys_libs=$(grep -oE "(^|[ :=])(/usr/(local/)?lib[^ ]*/lib|-l)$libs[^ ]*" "$build/build.ninja" | sort -u)
n_lib=$(grep -oE "(^|[ :=])($prefix/|deps-prefix/)usr/lib[^ ]*/lib$libs[^ ]*" "$build/build.ninja" |
        sed 's/^[ :=]//' | sort -u | wc -l)
{ echo "headers from the system:"; echo "$sys_headers"; echo "libraries from the system:"; echo "$sys_libs"; } >>"$out/isolation.log"
n_hdr=$(ninja -C "$build" -t deps 2>/dev/null | grep -cE "^ +$prefix/usr/include/")
if [ -n "$outside" ] || [ -n "$sys_headers" ] || [ -n "$sys_libs" ]; then
  row "libraries from the .debs only" FAIL "system copies used: ${outside//$'\n'/ } $(echo "$sys_headers" "$sys_libs" | head -3 | tr '\n' ' ') (isolation.log)"
else
  row "libraries from the .debs only" PASS "CMake packages, pkg-config, $n_hdr header reads, $n_lib libraries linked: all from the prefix"
fi

if [ "$dry_run" = 1 ]; then
  "$build/app/bench/folio-bench" --help >"$out/bench_help.txt" 2>&1 &&
    "$build/app/cli/folio-cli" --help >"$out/cli_help.txt" 2>&1 &&
    row "folio-bench / folio-cli --help" PASS "both run with the prefix's shared libraries"
  row "GPU steps" SKIP "FOLIO_DEVICE_DRY_RUN=1: stopped before the GPU"
  finish $failed
fi

# ---- 3. the GPU from here on ------------------------------------------------------------------
if [ -z "$gpu_name" ] || ! limited 60 "$build/tests/gpu/folio-gpu-probe" >"$out/probe.json" 2>"$out/probe.err"; then
  smi=$(command -v nvidia-smi >/dev/null && nvidia-smi -L 2>&1 | head -1 || echo "nvidia-smi not installed")
  note "no usable NVIDIA GPU: $smi; $(cat "$out/probe.err" 2>/dev/null)"
  row "GPU" FAIL "none usable here (nvidia-smi: ${gpu_name:-not found}); everything below needs one"
  finish 3
fi
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
row "GPU" INFO "$gpu_name, sm_$cap, $(sed -E 's/.*"copy_gbps": ([0-9.]+).*/\1/' "$out/probe.json") GB/s device copy"

# Device tests: whatever tests/gpu/CMakeLists.txt registers under the label gpu, one row each.
t0=$(date +%s)
(cd "$build" && FOLIO_FIXTURES=$fixtures limited 240 ctest -L gpu --timeout 200 -V --output-junit "$out/gpu_tests.xml") \
  >"$out/gpu_tests.log" 2>&1
ctest_rc=$?
n_listed=0
while IFS= read -r line; do  # "  1/8 Test #3: gpu_gemm_test ....   Passed    1.23 sec"
  name=$(sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' <<<"$line")
  secs=$(grep -oE '[0-9.]+ sec' <<<"$line")
  n_listed=$((n_listed + 1))
  if grep -q ' Passed ' <<<"$line"; then row "device test: ${name#gpu_}" PASS "$secs"
  else row "device test: ${name#gpu_}" FAIL "$(sed -E 's/.*\*+([A-Za-z ]+[a-z]).*/\1/' <<<"$line") after $secs; gpu_tests.log"; fi
done < <(grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$out/gpu_tests.log")
if [ "$n_listed" = 0 ]; then
  row "device tests" FAIL "ctest ran none (exit $ctest_rc, $(( $(date +%s) - t0 )) s); gpu_tests.log"
elif [ "$ctest_rc" = 124 ]; then
  row "device tests" FAIL "cut off by the time budget after $(( $(date +%s) - t0 )) s"
fi
# Parity lines of the backend test (teacher-forced logits vs the CPU backend).
while IFS= read -r line; do
  what=${line#*] }
  row "parity: ${what%%:*}" INFO "${what#*: }"
done < <(grep -oE '\[ parity \] .*' "$out/gpu_tests.log")

# The CLI on both backends: the same greedy continuation of a fixture (fp16 may flip a near-tie,
# so a difference is reported, not failed; the parity tests above are the strict check).
cli=$build/app/cli/folio-cli
gen=(generate --model "$fixtures/models/stories260K" --prompt "Once upon a time" --max-tokens 24 --raw --temperature 0 --json)
if limited 60 "$cli" "${gen[@]}" --backend cuda >"$out/cli_cuda.json" 2>"$out/cli_cuda.log" &&
   limited 60 "$cli" "${gen[@]}" --backend cpu --cpu-activations exact >"$out/cli_cpu.json" 2>"$out/cli_cpu.log"; then
  ids_cuda=$(grep -oE '"ids": *\[[^]]*\]' "$out/cli_cuda.json"); ids_cpu=$(grep -oE '"ids": *\[[^]]*\]' "$out/cli_cpu.json")
  if [ "$ids_cuda" = "$ids_cpu" ]; then row "folio-cli generate cuda vs cpu" PASS "same 24 greedy tokens (stories260K)"
  else row "folio-cli generate cuda vs cpu" INFO "greedy tokens differ (near-tie?): cli_cuda.json, cli_cpu.json"; fi
else
  row "folio-cli generate cuda vs cpu" FAIL "a run failed: cli_cuda.log, cli_cpu.log"
fi

jget() { sed -nE "s/.*\"$2\": *([0-9.eE+-]+).*/\1/p" "$1" | head -1; }  # jget FILE KEY: a number of a JSON file

# FP8 quality, seconds: perplexity of stories260K on the CUDA backend with FP8 weights
# (converted at load), an FP8 KV cache (scales from the first batch) and both, each compared by KL
# divergence with the CPU's fp32 run (the oracle) saved as the base. INFO rows: figures, not gates.
ppl_args=(perplexity --model "$fixtures/models/stories260K" --file "$fixtures/text/story.txt" --ctx 128 --json)
if limited 60 "$cli" "${ppl_args[@]}" --backend cpu --cpu-activations exact --save-logits "$out/ppl_base.lp" >"$out/ppl_cpu.json" 2>"$out/ppl_cpu.log"; then
  for variant in "fp16:" "fp8 weights:--quantization fp8" "fp8 KV:--kv-cache-dtype fp8 --calculate-kv-scales" \
                 "fp8 weights + KV:--quantization fp8 --kv-cache-dtype fp8 --calculate-kv-scales"; do
    name=${variant%%:*}
    read -r -a flags <<<"${variant#*:}"
    f=$out/ppl_cuda_$(tr -c 'a-z0-9\n' _ <<<"$name").json
    if limited 60 "$cli" "${ppl_args[@]}" --backend cuda "${flags[@]}" --kl-divergence "$out/ppl_base.lp" >"$f" 2>"${f%.json}.log"; then
      row "perplexity cuda, $name" INFO "PPL $(jget "$f" ppl) (cpu fp32 $(jget "$out/ppl_cpu.json" ppl)), mean KL $(jget "$f" mean_kl), top-1 $(jget "$f" top1_agreement) (stories260K)"
    else
      row "perplexity cuda, $name" FAIL "$(tail -1 "${f%.json}.log")"
    fi
  done
else
  row "perplexity cpu base (stories260K)" FAIL "$(tail -1 "$out/ppl_cpu.log")"
fi

# ---- 4. benchmarks ----------------------------------------------------------------------------
# In order of worth, as the budget may cut the end: folio on CUDA, HF on the same GPU, the sanitizer,
# folio on the CPU beside it, racecheck.
ctx=$(( in_len + out_len / 2 ))  # mean context of a decode step
limited 60 "$build/tests/gpu/folio-gpu-probe" "$bench_model" --context "$ctx" >"$out/probe_model.json" 2>>"$out/probe.err"
floor=$(sed -nE 's/.*"floor_ms": ([0-9.]+).*/\1/p' "$out/probe_model.json")
bench=$build/app/bench/folio-bench
# bench BACKEND CONCURRENT REQUESTS OUTPUT_LEN LIMIT_S: one folio-bench run (synthetic prompts, greedy;
# synthetic workloads never stop at EOS), its JSON in bench_BACKEND_cN.json; sets bench_tps.
# Optional after those: MODEL TAG FLAGS... (another model, a tag for the file and row names, extra flags).
bench() {
  local be=$1 c=$2 n=$3 olen=$4 lim=$5 model=${6:-$bench_model} tag=${7:-}
  shift $(( $# < 7 ? $# : 7 ))
  local f=$out/bench_${be}${tag:+_$tag}_c$c
  bench_tps=
  if [ "$(left)" -lt 30 ]; then row "folio-bench $be${tag:+ $tag}, $c concurrent" SKIP "time budget (${budget} s) spent"; return 1; fi
  limited "$lim" "$bench" --model "$model" --backend "$be" --num-requests "$n" --concurrency "$c" \
    --input-len "$in_len" --output-len "$olen" --json "$@" >"$f.json" 2>"$f.log"
  local rc=$?
  if [ $rc = 0 ]; then
    bench_tps=$(printf '%.1f' "$(jget "$f.json" output_tokens_per_s)")
    row "folio-bench $be${tag:+ $tag}, $c concurrent" INFO "$bench_tps output tok/s, itl p50 $(printf '%.2f' "$(jget "$f.json" itl_ms_p50)") ms ($n requests, ${in_len}+${olen}${tag:+; $(jget "$f.json" kv_blocks_total) KV blocks, load $(printf '%.0f' "$(jget "$f.json" load_seconds)") s})"
    return 0
  fi
  if [ $rc = 124 ]; then row "folio-bench $be${tag:+ $tag}, $c concurrent" SKIP "cut off after $lim s or at the budget: $(tail -1 "$f.log")"
  else row "folio-bench $be${tag:+ $tag}, $c concurrent" FAIL "exit $rc: $(tail -1 "$f.log")"; fi
  return 1
}
if [ -x "$bench" ]; then
  for c in 1 8 64 256; do
    bench cuda "$c" $(( c < 4 ? 4 : 2 * c )) "$out_len" 120 && cuda_tps[$c]=$bench_tps
    if [ "$c" = 1 ] && [ -n "${cuda_tps[1]:-}" ]; then
      itl=$(jget "$out/bench_cuda_c1.json" itl_ms_p50)
      pct=$(awk -v f="$floor" -v i="$itl" 'BEGIN { if (i > 0 && f > 0) printf "%.0f", 100 * f / i; else print 0 }')
      row "batch-1 decode ($bench_model)" "$([ "$pct" -ge 80 ] && echo PASS || echo BELOW)" \
          "$(printf '%.3f' "$itl") ms/token; floor ${floor:-?} ms at context $ctx = ${pct}% of floor (goal >= 80%)"
    fi
  done
  # FP8 on the same 7B shape (fp16 weights converted at load; sm_89+: W8A8 prefill): speed and, with
  # an FP8 KV cache, the pool (twice the blocks of fp16 in the same memory).
  fp8_model=${FOLIO_BENCH_FP8_MODEL:-dummy:llama-2-7b}
  for c in 1 64; do
    bench cuda "$c" $(( c < 4 ? 4 : 2 * c )) "$out_len" 150 "$fp8_model" fp8w --quantization fp8
  done
  bench cuda 64 128 "$out_len" 150 "$fp8_model" fp8w_fp8kv --quantization fp8 --kv-cache-dtype fp8
else
  row "folio-bench" FAIL "not built"
fi

if [ "${FOLIO_SKIP_HF:-0}" = 1 ]; then
  row "HF transformers comparison" SKIP "FOLIO_SKIP_HF=1"
elif [ ! -f "$root/tests/gpu/hf_bench.py" ] || ! python3 -c 'import torch, transformers' 2>/dev/null; then
  row "HF transformers comparison" SKIP "python3 with torch + transformers not available"
elif [ "$(left)" -lt 60 ]; then
  row "HF transformers comparison" SKIP "time budget (${budget} s) spent"
else
  # One JSON line per batch size, so a run cut off by the budget keeps the batches it finished.
  PYTHONUNBUFFERED=1 limited 180 python3 "$root/tests/gpu/hf_bench.py" --batch-sizes 1,8,64,256 --input-len "$in_len" \
    --output-len "$out_len" >"$out/hf_bench.jsonl" 2>"$out/hf_bench.log"
  rc=$?
  for c in 1 8 64 256; do
    theirs=$(sed -nE "s/.*\"batch\": $c, \"output_tokens_per_s\": ([0-9.]+).*/\1/p" "$out/hf_bench.jsonl" | head -1)
    [ -n "$theirs" ] && hf_tps[$c]=$theirs
  done
  hf_what="HF generate fp16 (transformers $(python3 -c 'import transformers; print(transformers.__version__)' 2>/dev/null))"
  if [ $rc = 0 ]; then row "$hf_what" INFO "batches $(IFS=,; echo "${!hf_tps[*]}") done (table below); hf_bench.jsonl"
  elif [ $rc = 124 ]; then row "$hf_what" SKIP "cut off by its limit or the budget after batches: ${!hf_tps[*]}"
  else row "$hf_what" FAIL "exit $rc: $(tail -1 "$out/hf_bench.log")"; fi
fi

# ---- 5. compute-sanitizer ---------------------------------------------------------------------
# Refused by some sandboxed runtimes ("Device not supported"): reported as N/A, not as our failure.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitizer_ok=0
sanitize() {  # sanitize NAME TOOL LOG CMD...: one row
  local name=$1 tool=$2 log=$3; shift 3
  if [ "$(left)" -lt 40 ]; then row "$name" SKIP "time budget (${budget} s) spent"; return; fi
  limited 90 "$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$out/$log" 2>&1
  local rc=$?
  local summary; summary=$(grep -oE '(ERROR|RACECHECK) SUMMARY: [0-9]+ [a-z ]+' "$out/$log" | tail -1)
  if grep -qE 'Device not supported|Target application terminated before first instrumented API call' "$out/$log"; then
    row "$name" N/A "compute-sanitizer cannot instrument this machine's GPU runtime ($log)"
  elif [ $rc = 0 ]; then row "$name" PASS "$summary"; sanitizer_ok=1
  elif [ $rc = 124 ]; then row "$name" SKIP "cut off by its limit or the budget ($log)"
  else row "$name" FAIL "${summary:-exit $rc}; $log"; fi
}
if [ -x "$sanitizer" ]; then
  sanitize "memcheck: folio-cli generate" memcheck memcheck_cli.log "$cli" generate --model "$fixtures/models/stories260K" \
    --prompt "Once upon a time" --max-tokens 8 --raw --backend cuda
  [ "$sanitizer_ok" = 1 ] &&
    sanitize "memcheck: backend greedy test" memcheck memcheck_backend.log "$build/tests/gpu/gpu_backend_test" \
      --gtest_filter='CudaBackend.GreedyGenerationMatchesTheFixtures'
else
  row "compute-sanitizer" N/A "not installed"
fi

# ---- 6. the CPU backend beside it (fewer requests and tokens: minutes otherwise) ----------------
if [ -x "$bench" ]; then
  bench cpu 1 2 "$cpu_out_len" 90 && cpu_tps[1]=$bench_tps
  bench cpu 8 8 "$cpu_out_len" 90 && cpu_tps[8]=$bench_tps
fi

# ---- 7. racecheck (slow: last, within the time budget) ------------------------------------------
if [ -x "$sanitizer" ] && [ "$sanitizer_ok" = 1 ]; then
  for spec in "attention:SimtDecodeAttention.MatchesCpuReference*:SimtPrefillAttention.Causal*" \
              "sampling:SimtSampling.MatchesTheCpuSamplerTokenForToken"; do
    t=${spec%%:*}
    sanitize "racecheck: $t" racecheck "racecheck_${t}.log" "$build/tests/gpu/gpu_${t}_test" --gtest_filter="${spec#*:}"
  done
fi

finish $failed
