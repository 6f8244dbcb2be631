#!/usr/bin/env bash
# Registers, spills, stack and shared memory of every kernel, from ptxas (-Xptxas -v), for one
# architecture: kernels/tools/resource_report.sh [ARCH=89]. Needs nvcc only (no GPU, no cuobjdump).
set -euo pipefail
arch=${1:-89}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-58s %5s %6s %6s %8s\n' kernel regs spill stack smem
for cu in "$root"/kernels/*.cu; do
  "$nvcc" -I"$root" -O3 -DNDEBUG -std=c++20 --expt-relaxed-constexpr -arch=sm_"$arch" -Xptxas=-v -c "$cu" \
      -o "$tmp/k.o" 2>"$tmp/log" || { cat "$tmp/log"; exit 1; }
  # ptxas prints per entry: "Compiling entry function 'NAME'", then the frame line, then the usage line.
  awk -v file="$(basename "$cu")" '
    /Compiling entry function/ { name = $0; sub(/.*function .\x27?/, "", name); sub(/\x27.*/, "", name) }
    /bytes stack frame/ { stack = $5; spill = $9 + $13 }
    /Used [0-9]+ registers/ {
      regs = $5; smem = 0
      if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART, RLENGTH - 11)
      cmd = "c++filt -p " name; cmd | getline pretty; close(cmd)
      gsub(/folio::cuda::|\(anonymous namespace\)::/, "", pretty)
      printf "%-58s %5s %6s %6s %8s\n", substr(pretty, 1, 58), regs, spill, stack, smem
    }' "$tmp/log"
done
