#!/usr/bin/env bash
# Run here (Debian bookworm with apt): downloads the .debs that tests/gpu/device_check.sh unpacks on
# a GPU machine that has nvcc, CMake and ninja but none of our libraries, into the git-ignored
# folder .deps/ of the repository. Pass `.deps` in the device tool's `carry` list.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
packages=(
  libsentencepiece0 libsentencepiece-dev   # tokenizer
  libspdlog1.10 libspdlog-dev libfmt9 libfmt-dev
  nlohmann-json3-dev
  libgtest-dev libgmock-dev                # GTest's CMake config names gmock's libraries too
  pkgconf-bin libpkgconf3                  # pkg-config, for sentencepiece's .pc file
)
mkdir -p "$root/.deps"
cd "$root/.deps"
rm -f ./*.deb
if ! apt-get download "${packages[@]}"; then
  echo "fetch_deps: apt-get download failed; try 'apt-get update' first" >&2
  exit 1
fi
size_kb=$(du -sk . | cut -f1)
echo "fetch_deps: $(ls ./*.deb | wc -l) packages, ${size_kb} KiB in $root/.deps"
if [ "$size_kb" -gt $((32 * 1024)) ]; then
  echo "fetch_deps: more than 32 MiB: too much to carry to the device machine (64 MiB for everything)" >&2
  exit 1
fi
