#!/usr/bin/env bash
# The .deb on a machine without CUDA: builds the packages of BUILD_DIR with CPack, unpacks them into a
# fresh root and runs them in a mount namespace where /usr/local/cuda (and the build tree's own CUDA
# module) cannot be seen.
#   cuda_free_install.sh BUILD_DIR FIXTURES_DIR
# Checks: no executable of the folio package links a CUDA library; the package depends on the QML
# modules the app loads (qml_depends_check.sh); folio-cli generates on the CPU
# (the reference's greedy tokens); --backend auto falls back to the CPU and logs why; --backend cuda
# fails with one line saying why; with folio-cuda unpacked too, the module is found and the line says
# what it lacks. Exit 77 (skipped) when the mount namespace cannot be made (not root, no unshare).
set -euo pipefail
build=$(cd "$1" && pwd)
fixtures=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cuda-free install: FAIL: $*" >&2; exit 1; }

if ! unshare -m true 2>/dev/null; then
  echo "cuda-free install: skipped: cannot make a mount namespace here (needs root and unshare)"
  exit 77
fi

(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack failed"; }
main_deb=$(ls "$work"/pkg/folio_*.deb 2>/dev/null | head -1 || true)
cuda_deb=$(ls "$work"/pkg/folio-cuda_*.deb 2>/dev/null | head -1 || true)
[ -n "$main_deb" ] || fail "cpack made no folio_*.deb ($(ls "$work/pkg"))"
dpkg-deb -x "$main_deb" "$work/root"
root=$work/root

[ -x "$root/usr/bin/folio-cli" ] || fail "usr/bin/folio-cli is missing from $(basename "$main_deb")"
for exe in folio folio-cli folio-bench; do
  [ -e "$root/usr/bin/$exe" ] || continue  # folio only where the app is built
  if readelf -d "$root/usr/bin/$exe" | grep -E 'NEEDED.*(libcuda|libcudart|libcublas|libnvidia)'; then
    fail "usr/bin/$exe links a CUDA library"
  fi
done
[ -z "$(find "$root" -name 'libfolio-cuda.so')" ] || fail "the folio package holds the CUDA module; it belongs to folio-cuda"
if [ -e "$root/usr/bin/folio" ]; then  # the app's QML modules (and theirs) are in the package's Depends
  "$(dirname "$0")/qml_depends_check.sh" "$(dirname "$0")/../../ui" "$main_deb" "$(dirname "$0")/../../installer/bootstrap.sh" \
    || fail "the folio package's Depends lacks a QML module the app loads"
fi

# Everything below runs with /usr/local/cuda and the build's module out of sight.
hide="mount -t tmpfs none /usr/local/cuda 2>/dev/null || true; [ -d '$build/lib/folio' ] && mount -t tmpfs none '$build/lib/folio'; "
in_ns() {  # command... -> stdout in $work/out, stderr in $work/err, returns its status
  unset FOLIO_CUDA_MODULE
  export SPDLOG_LEVEL=info  # folio-cli logs why `auto` did not pick CUDA at info level
  unshare -m bash -c "$hide"' exec "$@"' _ "$@" > "$work/out" 2> "$work/err"
}
stories=$fixtures/models/stories260K
gen=("$root/usr/bin/folio-cli" generate --model "$stories" --raw --prompt "Once upon a time" --max-tokens 8 --json)

in_ns "${gen[@]}" --backend cpu || fail "folio-cli generate --backend cpu failed: $(cat "$work/err")"
grep -q '"ids":\[432,383,286,261,376,298,315,421\]' "$work/out" || fail "not the reference's greedy tokens: $(cat "$work/out")"

in_ns "${gen[@]}" --backend auto || fail "--backend auto failed: $(cat "$work/err")"
grep -q '"backend":"cpu"' "$work/out" || fail "--backend auto did not run on the CPU: $(cat "$work/out")"
grep -q 'CUDA is not used because the CUDA module libfolio-cuda.so is not installed' "$work/err" \
  || fail "--backend auto did not say why CUDA is not used: $(cat "$work/err")"

if in_ns "${gen[@]}" --backend cuda; then fail "--backend cuda ran without the CUDA module"; fi
grep -q 'folio-cli generate: --backend cuda: the CUDA module libfolio-cuda.so is not installed.*install the folio-cuda package' "$work/err" \
  || fail "--backend cuda without the module did not say so: $(cat "$work/err")"

if [ -x "$root/usr/bin/folio" ]; then
  in_ns "$root/usr/bin/folio" --version || fail "folio --version failed: $(cat "$work/err")"
  grep -q '^folio ' "$work/out" || fail "folio --version printed: $(cat "$work/out")"
fi

if [ -n "$cuda_deb" ]; then
  dpkg-deb -x "$cuda_deb" "$root"
  [ -f "$root/usr/lib/folio/libfolio-cuda.so" ] || fail "folio-cuda does not install usr/lib/folio/libfolio-cuda.so"
  dpkg-deb -f "$cuda_deb" Depends | grep -q 'libcublas-13-0' || fail "folio-cuda does not depend on libcublas-13-0"
  if in_ns "${gen[@]}" --backend cuda; then fail "--backend cuda ran with /usr/local/cuda hidden"; fi
  grep -q -- "--backend cuda: the CUDA module $root/usr/lib/folio/libfolio-cuda.so cannot be loaded: libcublas" "$work/err" \
    || fail "--backend cuda with the module but no cuBLAS did not say so: $(cat "$work/err")"
  in_ns "${gen[@]}" --backend auto || fail "--backend auto with the module but no cuBLAS failed: $(cat "$work/err")"
  grep -q '"backend":"cpu"' "$work/out" || fail "--backend auto did not fall back to the CPU"
  echo "cuda-free install: ok ($(basename "$main_deb") and $(basename "$cuda_deb"))"
else
  echo "cuda-free install: ok ($(basename "$main_deb"); this build has no CUDA module to package)"
fi
