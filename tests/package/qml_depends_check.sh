#!/usr/bin/env bash
# The QML modules the app loads at run time are installed with it: dpkg-shlibdeps cannot see them, so
# the folio package's Depends and installer/bootstrap.sh's package list name them by hand. This walks
# the modules ui/ imports and what those load in turn (QtQuick.Dialogs' non-native file and folder
# dialogs import Qt.labs.folderlistmodel: without it Export and "Open model folder…" crash), finds each module's Debian package (dpkg -S on its qmldir) and checks both lists name it.
#   qml_depends_check.sh UI_DIR DEPENDS BOOTSTRAP_SH
# DEPENDS: a .deb (its Depends field) or the build's CPackConfig.cmake (CPACK_DEBIAN_PACKAGE_DEPENDS).
set -euo pipefail
ui=$1
depends_from=$2
bootstrap=$3
fail() { echo "qml depends: FAIL: $*" >&2; exit 1; }

case "$depends_from" in
  *.deb) depends=$(dpkg-deb -f "$depends_from" Depends) ;;
  *) depends=$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_DEPENDS "\(.*\)")$/\1/p' "$depends_from") ;;
esac
[ -n "$depends" ] || fail "no Depends in $depends_from"
qml_dir=$(qmake6 -query QT_INSTALL_QML 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/qt6/qml)
[ -d "$qml_dir" ] || fail "no Qt QML folder at $qml_dir"

imports_of() {  # files... -> module names, one a line (the app's own modules and relative imports left out)
  sed -n 's/^import[[:space:]]\+\([A-Za-z][A-Za-z0-9_.]*\).*/\1/p' "$@" | grep -v '^Folio' | sort -u
}
# A module's own QML files: those under its folder but not under a nested module's folder, a file
# selector's (+Material: only that style loads them) or Qt Design Studio's (designer/).
own_qml_files() {  # module folder
  find "$1" -mindepth 1 -type d \( -name '+*' -o -name designer -o -exec test -f '{}/qmldir' \; \) -prune \
    -o -name '*.qml' -print
}

mapfile -t direct < <(imports_of $(find "$ui" -name '*.qml'))
[ ${#direct[@]} -gt 0 ] || fail "no imports found in $ui"
declare -A why=()
queue=()
for m in "${direct[@]}"; do why[$m]="imported by $ui"; queue+=("$m"); done
# What those modules load in turn: their QML files' imports and their qmldir's (non-optional) imports.
while [ ${#queue[@]} -gt 0 ]; do
  m=${queue[0]}
  queue=("${queue[@]:1}")
  dir=$qml_dir/${m//.//}
  if [ ! -f "$dir/qmldir" ]; then
    # Registered by libQt6Qml and libQt6QmlModels themselves (the shared libraries' own dependencies).
    case "$m" in QtQml|QtQml.Models) unset "why[$m]"; continue ;; esac
    fail "QML module $m (${why[$m]}) is not installed here: no $dir/qmldir"
  fi
  mapfile -t files < <(own_qml_files "$dir")
  for sub in $( ( [ ${#files[@]} -eq 0 ] || imports_of "${files[@]}"
                  sed -n 's/^\(default \)\?import[[:space:]]\+\([A-Za-z][A-Za-z0-9_.]*\).*/\2/p' "$dir/qmldir"
                  # its implementation modules, which its C++ loads (QtQuick.Dialogs.quickimpl)
                  for d in "$dir"/*impl; do [ -f "$d/qmldir" ] && echo "$m.${d##*/}"; done ) | sort -u); do
    [ -n "${why[$sub]:-}" ] && continue
    why[$sub]="which $m loads"
    queue+=("$sub")
  done
done

checked=0
for m in "${!why[@]}"; do
  qmldir=$qml_dir/${m//.//}/qmldir
  [ -f "$qmldir" ] || fail "QML module $m (${why[$m]}) is not installed here: no $qmldir"
  pkg=$(dpkg -S "$qmldir" 2>/dev/null | head -1 | cut -d: -f1) || true
  [ -n "$pkg" ] || fail "no Debian package owns $qmldir (QML module $m)"
  grep -Eq "(^|[ ,])$pkg([ ,(]|$)" <<<"$depends" || fail "the folio package does not depend on $pkg (QML module $m, ${why[$m]})"
  grep -Eq "(^|[[:space:]])$pkg([[:space:]]|$)" "$bootstrap" || fail "$bootstrap does not install $pkg (QML module $m, ${why[$m]})"
  checked=$((checked + 1))
done
echo "qml depends: ok ($checked QML modules, each installed by bootstrap.sh and depended on by the package)"
