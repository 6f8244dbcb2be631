#!/usr/bin/env bash
# tests/gpu/fetch_deps.sh [--fixtures]
#
# Run here (Debian bookworm with apt). Makes what tests/gpu/device_check.sh needs on a GPU machine that
# has nvcc, CMake and ninja but none of our libraries, in the git-ignored folder .deps/ of the
# repository (pass `.deps` in the device tool's `carry` list):
#   .deps/prefix.tar.xz   the Debian packages below, unpacked into one tree (/usr/...) and packed with
#                         xz, without what no build or run reads (static libraries other than
#                         GoogleTest's, documentation, manual pages);
#   .deps/packages.txt    the packages in it, with their versions (device_check.sh checks the list);
#   .deps/fixtures.tar.xz with --fixtures: the fixtures the device check reads (tests/fixtures is over
#                         100 MB, the device tool carries 64 MiB in all; xz dedupes the tokenizers).
# Every shared library in the tree must find the libraries it needs in the tree or among the C and C++
# runtime's own (checked below), so the machine's system libraries are never used.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The build's dependencies (-dev) and, after them, their shared libraries and those libraries' own
# dependencies (libcurl's TLS, Kerberos, LDAP and IDN libraries), as bookworm names them.
packages=(
  libsentencepiece0 libsentencepiece-dev                   # tokenizer.model
  libspdlog1.10 libspdlog-dev libfmt9 libfmt-dev
  nlohmann-json3-dev
  libpcre2-dev libpcre2-8-0 libpcre2-16-0 libpcre2-32-0 libpcre2-posix3   # tokenizer.json pre-tokenizers
  libicu-dev libicu72                                      # normalization, character categories
  libsimdjson-dev libsimdjson14                            # tokenizer.json parsing
  libcurl4-openssl-dev libcurl4 libssl-dev libssl3 zlib1g zlib1g-dev   # the Hub client, the remote engine
  libcpp-httplib-dev libcpp-httplib0.11 libbrotli-dev libbrotli1        # folio-server
  libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2
  libidn2-0 libunistring2 libldap-2.5-0 libsasl2-2 libsasl2-modules-db libdb5.3 libnghttp2-14 libpsl5
  librtmp1 libgnutls30 libhogweed6 libnettle8 libgmp10 libp11-kit0 libtasn1-6 libffi8 libssh2-1 libzstd1
  libgtest-dev libgmock-dev                                # GTest's CMake config names gmock's libraries too
  pkgconf-bin libpkgconf3                                  # pkg-config, for the .pc files above
)
# The C and C++ runtime: every Linux machine with a compiler has them (and a newer one runs our builds).
runtime='^(libc|libm|libdl|libpthread|librt|libresolv|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so'

deps=$root/.deps
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debs" "$work/prefix"
if ! (cd "$work/debs" && apt-get download "${packages[@]}" >"$work/download.log" 2>&1); then
  tail -5 "$work/download.log" >&2
  echo "fetch_deps: apt-get download failed; try 'apt-get update' first" >&2
  exit 1
fi
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$work/prefix"; done
prefix=$work/prefix
find "$prefix" -name '*.a' ! -name 'libgtest*' ! -name 'libgmock*' -delete
rm -rf "$prefix"/usr/share/{doc,man,lintian,locale,bug}
# Links that name a system path (bookworm's zlib1g-dev: libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13)
# would reach the machine's own files there: point them into the tree.
find "$prefix" -type l -lname '/*' | while read -r link; do ln -sfr "$prefix$(readlink "$link")" "$link"; done

# The closure check: each library a shared object of the tree needs is in the tree or the runtime.
libdir=$prefix/usr/lib/x86_64-linux-gnu
missing=$(find "$prefix" -type f -name '*.so*' -print0 |
          xargs -0 -n1 readelf -d 2>/dev/null | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' | sort -u |
          while read -r lib; do
            [ -e "$libdir/$lib" ] || [ -e "$prefix/lib/x86_64-linux-gnu/$lib" ] || grep -qE "$runtime" <<<"$lib" || echo "$lib"
          done)
if [ -n "$missing" ]; then
  echo "fetch_deps: libraries needed by the tree but not in it: $missing (add their packages above)" >&2
  exit 1
fi

mkdir -p "$deps"
rm -f "$deps"/*.deb "$deps/prefix.tar.xz" "$deps/packages.txt"
for deb in "$work"/debs/*.deb; do dpkg-deb --showformat='${Package} ${Version}\n' -W "$deb"; done >"$deps/packages.txt"
tar -C "$prefix" -cf - . | xz -6 -T0 >"$deps/prefix.tar.xz"

if [ "${1:-}" = --fixtures ]; then
  # What the device tests and device_check.sh read (tests/simt/*_test.cpp as built by tests/gpu): the
  # fixture models without their dequantized copies (the CPU tests' business), and the perplexity text.
  fx=$root/tests/fixtures
  (cd "$fx" && tar -cf - --exclude=dequantized.safetensors models/stories260K models/tiny-awq models/tiny-llama3 \
       models/tiny-qwen2 models/tiny-qwen3 models/stories260K-fp8 models/stories260K-fp8-ct \
       models/stories260K-w4a16-ct models/stories260K-w4a16-ct-zp text) | xz -9 -T0 >"$deps/fixtures.tar.xz"
fi

size_kb=$(du -sk "$deps" | cut -f1)
echo "fetch_deps: $(wc -l <"$deps/packages.txt") packages, ${size_kb} KiB in $deps: $(cd "$deps" && ls | paste -sd' ')"
if [ "$size_kb" -gt $((60 * 1024)) ]; then
  echo "fetch_deps: more than 60 MiB: too much to carry to the device machine (64 MiB for everything)" >&2
  exit 1
fi
