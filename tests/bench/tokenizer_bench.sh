#!/usr/bin/env bash
# Tokenizer encoding speed: Folio against @huggingface/tokenizers (the Hugging Face JavaScript
# implementation, from npm) on the same few MB of mixed-language text, alternating in one run, with a
# check that both give the same ids. Prints a table (MB/s of wall time and of CPU time, and the ratio).
#
#   tests/bench/tokenizer_bench.sh [BUILD_DIR]
# Environment: ROUNDS (alternations, default 3), BYTES (text size, default 3 MiB), MODELS (fixture
# tokenizer folders, default "llama3_1 qwen3"), FOLIO_BENCH_CACHE (where the npm package is installed,
# default ~/.cache/folio-bench; never inside the repository).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
bench=$build/app/bench/folio-tokenizer-bench
rounds=${ROUNDS:-3}
bytes=${BYTES:-3145728}
models=${MODELS:-llama3_1 qwen3}
cache=${FOLIO_BENCH_CACHE:-$HOME/.cache/folio-bench}

[[ -x $bench ]] || { echo "no $bench: build the folio-tokenizer-bench target first" >&2; exit 1; }
command -v node >/dev/null || { echo "node is needed for the reference (apt-get install nodejs npm)" >&2; exit 1; }

# The reference, pinned, installed outside the repository.
mkdir -p "$cache/node"
if [[ ! -d $cache/node/node_modules/@huggingface/tokenizers ]]; then
  (cd "$cache/node" && npm init -y >/dev/null && npm install --no-audit --no-fund @huggingface/tokenizers@0.2.0 >/dev/null)
fi
cp "$root/tests/bench/tokenizer_bench.mjs" "$cache/node/"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bench" --write-text "$work/text.txt" --bytes "$bytes"

declare -A sum_f sum_n sum_fc sum_nc
echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "text: $(wc -c <"$work/text.txt") bytes of mixed-language text; $rounds rounds, alternating"
for ((r = 1; r <= rounds; r++)); do
  for m in $models; do
    dir=$root/tests/fixtures/tokenizers/$m
    f=$("$bench" --model "$dir" --text "$work/text.txt" --rounds 5 --ids-out "$work/ids_folio_$m.txt")
    n=$(node "$cache/node/tokenizer_bench.mjs" "$dir" "$work/text.txt" 2 "$work/ids_node_$m.txt")
    if ! cmp -s "$work/ids_folio_$m.txt" "$work/ids_node_$m.txt"; then
      echo "MISMATCH: $m ids differ between Folio and @huggingface/tokenizers" >&2
      exit 2
    fi
    get() { sed -n "s/.*\"$2\":\([0-9.e+-]*\).*/\1/p" <<<"$1"; }
    printf 'round %d %-9s folio warm %7.1f MB/s (cpu %7.1f, cold %6.1f)   node warm %6.2f MB/s (cpu %6.2f, cold %6.2f)   ids identical (%s tokens)\n' \
      "$r" "$m" "$(get "$f" warm_mbps)" "$(get "$f" warm_cpu_mbps)" "$(get "$f" cold_mbps)" \
      "$(get "$n" warm_mbps)" "$(get "$n" warm_cpu_mbps)" "$(get "$n" cold_mbps)" "$(get "$f" tokens)"
    echo "$m $(get "$f" warm_mbps) $(get "$f" warm_cpu_mbps) $(get "$f" cold_mbps) $(get "$f" cold_cpu_mbps) $(get "$n" warm_mbps) $(get "$n" warm_cpu_mbps) $(get "$n" cold_mbps) $(get "$n" cold_cpu_mbps) $(get "$f" load_s) $(get "$n" load_s)" >>"$work/rows"
  done
done

echo
echo "| tokenizer | Folio MB/s (cold / warm) | Folio MB/s of CPU (cold / warm) | @huggingface/tokenizers MB/s (cold / warm) | its MB/s of CPU (cold / warm) | ratio warm (wall / CPU) | load s (Folio / Node) |"
echo "|---|---|---|---|---|---|---|"
for m in $models; do
  awk -v m="$m" '$1 == m { n++; for (i = 2; i <= NF; i++) s[i] += $i }
    END { printf "| %s | %.1f / %.1f | %.1f / %.1f | %.2f / %.2f | %.2f / %.2f | %.0f× / %.0f× | %.2f / %.2f |\n",
          m, s[4]/n, s[2]/n, s[5]/n, s[3]/n, s[8]/n, s[6]/n, s[9]/n, s[7]/n, s[2]/s[6], s[3]/s[7], s[10]/n, s[11]/n }' "$work/rows"
done
echo "(means over $rounds rounds; cold: the first encode in a fresh process, warm: the median of the later ones)"
