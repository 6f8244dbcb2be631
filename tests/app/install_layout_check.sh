#!/usr/bin/env bash
# The `cmake --install` layout packaging relies on: the executables, the desktop entry, the icon, the
# AppStream metainfo (valid, MIT) and the licence as share/doc/folio/copyright.
#   install_layout_check.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" > /dev/null

fail() { echo "install layout: $*" >&2; exit 1; }
for f in bin/folio share/applications/io.github.folio.Folio.desktop \
         share/metainfo/io.github.folio.Folio.metainfo.xml \
         share/icons/hicolor/scalable/apps/io.github.folio.Folio.svg share/doc/folio/copyright; do
  [ -e "$prefix/$f" ] || fail "$f is missing from the installed tree"
done
grep -q '^MIT License' "$prefix/share/doc/folio/copyright" || fail "share/doc/folio/copyright is not the MIT licence"
grep -q 'Copyright (c) .* The Folio authors' "$prefix/share/doc/folio/copyright" || fail "copyright line missing"
grep -q '<project_license>MIT</project_license>' "$prefix/share/metainfo/io.github.folio.Folio.metainfo.xml" \
  || fail "the metainfo does not say project_license MIT"
command -v appstreamcli > /dev/null || fail "appstreamcli (package appstream) is needed to validate the metainfo"
appstreamcli validate --no-net "$prefix/share/metainfo/io.github.folio.Folio.metainfo.xml"
echo "install layout: ok"
