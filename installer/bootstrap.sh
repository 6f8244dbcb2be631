#!/usr/bin/env bash
# The two commands of the README, in one script:
#   installer/bootstrap.sh app [ARGS...]   install what is missing, build, start the app
#   installer/bootstrap.sh test            install what is missing, build, run every test
#                                          (then the engine tests again under ASan + UBSan, and
#                                          each fuzz target for a few seconds)
# Works as root or through sudo on Debian bookworm; idempotent and quick when nothing changed.
set -euo pipefail

mode=${1:-}
[ $# -gt 0 ] && shift
case "$mode" in
  app|test) ;;
  *) echo "usage: $0 app [folio arguments...] | test" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libgtest-dev libsentencepiece-dev libspdlog-dev libfmt-dev nlohmann-json3-dev libsqlite3-dev
  libpcre2-dev libicu-dev libsimdjson-dev
  libcurl4-openssl-dev libssl-dev python3 libcpp-httplib-dev curl
  qt6-base-dev qt6-declarative-dev qt6-declarative-dev-tools qt6-svg-dev libgl-dev libvulkan-dev
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts
  qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtquick-dialogs
  qml6-module-qtqml-workerscript qml6-module-qtcore qml6-module-qttest qml6-module-qtquick-shapes
  qml6-module-qt-labs-platform qml6-module-qt-labs-settings qml6-module-qt-labs-qmlmodels
  qml6-module-qt-labs-folderlistmodel
  libqt6sql6-sqlite libqt6svg6 fonts-inter dbus-daemon appstream
  clang-14 libclang-rt-14-dev
  python3-numpy python3-sentencepiece
)
# Node and npm run the reference clients the tests install (the openai package). A machine may already
# have Node from elsewhere (NodeSource's nodejs bundles npm and conflicts with Debian's npm package), so
# Debian's are added only when no npm is on the PATH.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

jobs=$(nproc)
export CCACHE_DIR=${CCACHE_DIR:-$root/.cache/ccache}
test_args=()
if [ "$mode" = test ]; then
  # CI: one CUDA architecture keeps the build inside its time budget, and the fixtures are named
  # explicitly as the ones in this clone, so a pass proves the repository carries all it needs.
  test_args=(-DCMAKE_CUDA_ARCHITECTURES=${FOLIO_CUDA_ARCH:-89} -DFOLIO_FIXTURES="$root/tests/fixtures")
fi

configure() {  # dir, extra cmake args...
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
  elif [ $# -gt 0 ]; then
    cmake "$dir" "$@" >/dev/null  # an existing build keeps its cache but takes these settings
  fi
}

configure build "${test_args[@]}"
cmake --build build -j "$jobs"

if [ "$mode" = app ]; then
  exec build/app/gui/folio "$@"
fi

ctest --test-dir build --output-on-failure -j "$jobs"

# Engine tests again under AddressSanitizer + UndefinedBehaviorSanitizer (no app, no CUDA).
configure build-asan -DFOLIO_SANITIZE=ON -DFOLIO_BUILD_APP=OFF -DFOLIO_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DFOLIO_FIXTURES="$root/tests/fixtures"
cmake --build build-asan -j "$jobs" --target folio_engine_tests  # what -L engine runs, nothing more
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -L engine

# The fuzz targets (clang, libFuzzer, ASan + UBSan; tests/fuzz/README.md), each for a bounded time;
# tests/fuzz/run_long.sh is the long run.
configure build-fuzz -DFOLIO_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFOLIO_FIXTURES="$root/tests/fixtures" -DFOLIO_FUZZ_SECONDS=${FOLIO_FUZZ_SECONDS:-15}
cmake --build build-fuzz -j "$jobs" --target folio_fuzzers
ctest --test-dir build-fuzz --output-on-failure -j "$jobs" -L fuzz
echo "bootstrap: all tests passed"
