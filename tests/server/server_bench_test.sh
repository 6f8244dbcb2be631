#!/usr/bin/env bash
# folio-bench --backend remote against folio-server on loopback: a synthetic workload at concurrency 4
# completes every request with the asked lengths (the server's usage counts), TTFT and ITL measured;
# bad usage is refused by name; a wrong key fails the run (exit 1) with the 401 message.
#   server_bench_test.sh FOLIO_SERVER MODEL_DIR WORK_DIR FOLIO_BENCH
set -euo pipefail
FOLIO_SERVER=$1; model=$2; work=$3; bench=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/server_lib.sh"
mkdir -p "$work"
trap 'stop_server >/dev/null 2>&1 || true' EXIT
fail() { echo "FAIL: $*"; exit 1; }

start_server "$work" --model "$model" --backend cpu --cpu-activations exact --api-key bench-key
"$bench" --backend remote --endpoint "$BASE" --api-key bench-key --model "$model" --num-requests 12 --input-len 16 \
  --output-len 24 --concurrency 4 --json >"$work/remote.json"
python3 - "$work/remote.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["remote"] is True and j["backend"] == "remote", j
assert j["requests"] == 12 and j["completed"] == 12 and j["errors"] == 0, j
assert j["output_tokens"] == 12 * 24, j["output_tokens"]
assert j["input_tokens"] == 12 * 16, j["input_tokens"]
assert j["ttft_ms_p50"] > 0 and j["ttft_ms_p99"] >= j["ttft_ms_p50"], j
assert j["itl_ms_p50"] > 0 and j["itl_ms_p99"] >= j["itl_ms_p50"], j
assert j["output_tokens_per_s"] > 0, j
print("remote bench summary ok")
PY
"$bench" --backend remote --endpoint "$BASE" --api-key bench-key --num-requests 2 >"$work/no_vocab.out" 2>&1 && fail "no vocabulary accepted"
grep -q -- "--vocab-size" "$work/no_vocab.out" || fail "no vocabulary: $(cat "$work/no_vocab.out")"
"$bench" --backend remote --endpoint "$BASE" --api-key bench-key --vocab-size 512 --kv-blocks 8 >"$work/local_flag.out" 2>&1 && fail "--kv-blocks accepted"
grep -q -- "--kv-blocks sets up a local engine" "$work/local_flag.out" || fail "local flag: $(cat "$work/local_flag.out")"
rc=0; "$bench" --backend remote --endpoint "$BASE" --api-key not-the-key --vocab-size 512 --num-requests 2 >"$work/key.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "wrong key: exit $rc"
grep -q "HTTP 401" "$work/key.out" || fail "wrong key: $(cat "$work/key.out")"
grep -q "not-the-key" "$work/key.out" && fail "the key was printed"
stop_server
echo "server_bench_test: ok"
