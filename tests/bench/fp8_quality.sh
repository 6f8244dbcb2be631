#!/usr/bin/env bash
# What each quantization costs: perplexity and KL divergence of folio-cli perplexity on
# the CPU, each row against its model's reference run in the exact mode (saved with --save-logits).
# Prints the tables of docs/quantization.md (markdown). Seconds on 2 cores; the CPU backend is deterministic, so the
# figures do not depend on the machine.
#   tests/bench/fp8_quality.sh [BUILD_DIR (default build)]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cli=${1:-$root/build}/app/cli/folio-cli
[[ -x $cli ]] || { echo "fp8_quality.sh: no folio-cli at $cli (build the folio-cli target)" >&2; exit 2; }
fx=$root/tests/fixtures
text=$fx/text/story.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row MODEL_DIR LABEL_WEIGHTS LABEL_KV BASE [flags...]: one perplexity run compared with BASE
row() {
  local model=$1 weights=$2 kv=$3 base=$4
  shift 4
  "$cli" perplexity --backend cpu --model "$model" --file "$text" --ctx 128 --json --kl-divergence "$base" "$@" \
    >"$tmp/run.json" 2>"$tmp/run.log" || { echo "fp8_quality.sh: $model $*: $(tail -1 "$tmp/run.log")" >&2; exit 1; }
  python3 - "$tmp/run.json" "$weights" "$kv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); kl = j["kl"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {j['ppl']:.3f} | {kl['ppl_ratio']:.3f} | {kl['mean_kl']:.4f} | {100 * kl['top1_agreement']:.1f}% |")
PY
}

header() {
  echo "| weights | KV cache | PPL | × reference | mean KL | same top token |"
  echo "|---|---|---|---|---|---|"
}

# stories260K: a real trained model (fp32 weights); the reference is its exact-mode fp32 run.
s=$fx/models/stories260K
"$cli" perplexity --backend cpu --cpu-activations exact --model "$s" --file "$text" --ctx 128 --json \
  --save-logits "$tmp/stories.lp" >/dev/null 2>"$tmp/base.log" || { tail -1 "$tmp/base.log" >&2; exit 1; }
ex=(--cpu-activations exact)
cal=(--kv-cache-dtype fp8 --calculate-kv-scales)
echo "stories260K (fp32 reference: the exact mode)"
header
row "$s" "fp32 (reference)" "fp32" "$tmp/stories.lp" "${ex[@]}"
row "$s" "fp32, int8 activations (the CPU default)" "fp32" "$tmp/stories.lp" --cpu-activations int8
row "$s" "FP8 E4M3 per channel, at load (\`--quantization fp8\`)" "fp32" "$tmp/stories.lp" "${ex[@]}" --quantization fp8
row "$fx/models/stories260K-fp8" "FP8 E4M3 per tensor (AutoFP8 fixture)" "fp32" "$tmp/stories.lp" "${ex[@]}"
row "$fx/models/stories260K-fp8-ct" "FP8 E4M3 per channel (compressed-tensors fixture)" "fp32" "$tmp/stories.lp" "${ex[@]}"
row "$s" "fp32" "FP8 E4M3, scale 1.0" "$tmp/stories.lp" "${ex[@]}" --kv-cache-dtype fp8
row "$s" "fp32" "FP8 E4M3, first-batch scales" "$tmp/stories.lp" "${ex[@]}" "${cal[@]}"
row "$s" "fp32" "FP8 E5M2, first-batch scales" "$tmp/stories.lp" "${ex[@]}" --kv-cache-dtype fp8_e5m2 --calculate-kv-scales
row "$s" "FP8 at load" "FP8 E4M3, first-batch scales" "$tmp/stories.lp" "${ex[@]}" --quantization fp8 "${cal[@]}"
row "$fx/models/stories260K-fp8" "FP8 per tensor (AutoFP8 fixture)" "FP8 E4M3, first-batch scales" "$tmp/stories.lp" "${ex[@]}" "${cal[@]}"
row "$fx/models/stories260K-fp8-ct" "FP8 per channel (compressed-tensors fixture)" "FP8 E4M3, first-batch scales" "$tmp/stories.lp" "${ex[@]}" "${cal[@]}"
row "$s" "fp32, int8 activations (the CPU default)" "FP8 E4M3, first-batch scales" "$tmp/stories.lp" --cpu-activations int8 "${cal[@]}"

# tiny-awq: random 4-bit AWQ weights (not a trained model); the reference is its exact-mode run.
a=$fx/models/tiny-awq
"$cli" perplexity --backend cpu --cpu-activations exact --model "$a" --file "$text" --ctx 128 --json \
  --save-logits "$tmp/awq.lp" >/dev/null 2>"$tmp/base.log" || { tail -1 "$tmp/base.log" >&2; exit 1; }
echo
echo "tiny-awq (AWQ 4-bit reference: the exact mode)"
header
row "$a" "AWQ 4-bit (reference)" "fp32" "$tmp/awq.lp" "${ex[@]}"
row "$a" "AWQ 4-bit, int8 activations (the CPU default)" "fp32" "$tmp/awq.lp" --cpu-activations int8
row "$a" "AWQ 4-bit" "FP8 E4M3, first-batch scales" "$tmp/awq.lp" "${ex[@]}" "${cal[@]}"
row "$a" "AWQ 4-bit" "FP8 E5M2, first-batch scales" "$tmp/awq.lp" "${ex[@]}" --kv-cache-dtype fp8_e5m2 --calculate-kv-scales
row "$a" "AWQ 4-bit, int8 activations (the CPU default)" "FP8 E4M3, first-batch scales" "$tmp/awq.lp" --cpu-activations int8 "${cal[@]}"
