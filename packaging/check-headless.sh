#!/usr/bin/env bash
# Proves the headless build (ATTNLAB_GUI=OFF: core, analysis, attnlab-cli and their tests)
# needs neither Qt Widgets, Gui, Svg, PrintSupport nor QCustomPlot, as on a server without
# those packages. Debian ships Widgets and Gui inside qt6-base-dev, so they cannot simply be
# uninstalled; instead, as root, the script hides them in a private mount namespace (their
# CMake packages, headers and libraries become empty; nothing changes outside the
# namespace), configures the build from scratch, builds everything, checks that no build
# command and no binary refers to them, and runs CTest.
#
#   bash packaging/check-headless.sh [BUILD_DIR] [-DVAR=VALUE...] [-- CTEST_ARGS...]
#
# BUILD_DIR defaults to build/headless (the 'headless' preset's folder; configured afresh,
# so an earlier build there is reused where its commands are unchanged: ninja still rebuilds
# any object whose recorded headers are now hidden). CTEST_ARGS default to '-j2', the whole
# headless suite; e.g. '-- -L layering' runs a part. -D definitions go to CMake's configure
# step: packaging/setup-cuda.sh --headless-check passes the CUDA LibTorch's this way, so that
# one build proves both the headless layering and the LibTorch 2.x line. Without root or unshare(1) it falls
# back to telling CMake the packages are absent (CMAKE_DISABLE_FIND_PACKAGE_*) and relies
# on the checks of the build commands and binaries (ATTNLAB_HEADLESS_NO_NAMESPACE=1 forces
# that fallback).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

build_dir=build/headless
if [ $# -gt 0 ] && [ "$1" != "--" ] && [ "${1#-D}" = "$1" ]; then
  build_dir=$1
  shift
fi
cmake_defs=()
while [ $# -gt 0 ] && [ "${1#-D}" != "$1" ]; do
  cmake_defs+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
# The whole headless suite by default (under a minute on 2 cores; the build dominates).
default_ctest=(-j2)
ctest_args=("${@:-}")
[ ${#ctest_args[@]} -eq 1 ] && [ -z "${ctest_args[0]}" ] && ctest_args=("${default_ctest[@]}")

arch=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
libdir=/usr/lib/$arch
incdir=/usr/include/$arch/qt6
# What a server without the GUI packages lacks.
hidden_dirs=(
  "$libdir/cmake/Qt6Widgets" "$libdir/cmake/Qt6WidgetsTools" "$libdir/cmake/Qt6Gui"
  "$libdir/cmake/Qt6GuiTools" "$libdir/cmake/Qt6Svg" "$libdir/cmake/Qt6SvgWidgets"
  "$libdir/cmake/Qt6PrintSupport" "$libdir/cmake/Qt6OpenGL" "$libdir/cmake/Qt6OpenGLWidgets"
  "$libdir/cmake/QCustomPlot" "$libdir/cmake/QCustomPlotQt6"
  "$incdir/QtWidgets" "$incdir/QtGui" "$incdir/QtSvg" "$incdir/QtSvgWidgets"
  "$incdir/QtPrintSupport" "$incdir/QtOpenGL" "$incdir/QtOpenGLWidgets"
)
hidden_file_globs=(
  /usr/include/qcustomplot.h
  "$libdir/libQt6Widgets.so*" "$libdir/libQt6Gui.so*" "$libdir/libQt6Svg.so*"
  "$libdir/libQt6SvgWidgets.so*" "$libdir/libQt6PrintSupport.so*" "$libdir/libQt6OpenGL*.so*"
  "$libdir/libQCustomPlot*.so*"
)
# Anything of theirs (or of Qt 5's GUI) in a build command or a binary's own dependencies.
gui_regex='Qt[56]?(Widgets|Gui|Svg|PrintSupport|OpenGL)|[Qq][Cc]ustom[Pp]lot'
# In the whole run-time closure: the hidden Qt 6 GUI libraries and QCustomPlot.
closure_regex='libQt6(Widgets|Gui|Svg|PrintSupport|OpenGL)|[Qq][Cc]ustom[Pp]lot'

hide_everything() {
  for d in "${hidden_dirs[@]}"; do
    [ -d "$d" ] && mount -t tmpfs -o ro,size=1k none "$d"
  done
  for g in "${hidden_file_globs[@]}"; do
    for f in $g; do
      # Real files only: the symlinks to them then lead to an empty file too.
      if [ -f "$f" ] && [ ! -L "$f" ]; then mount --bind /dev/null "$f"; fi
    done
  done
  # The proof that they are gone, for the log.
  echo "check-headless: hidden: $(ls "$libdir/cmake/Qt6Widgets" | wc -l) files in" \
       "cmake/Qt6Widgets, $(ls "$incdir/QtWidgets" | wc -l) in include/QtWidgets," \
       "libQt6Widgets.so.6 is $(stat -L -c %s "$libdir/libQt6Widgets.so.6" 2>/dev/null || echo absent) bytes"
}

if [ "${ATTNLAB_HEADLESS_INSIDE:-}" = "1" ]; then
  mode=namespace
  hide_everything
elif [ "${ATTNLAB_HEADLESS_NO_NAMESPACE:-}" != "1" ] && [ "$(id -u)" -eq 0 ] &&
     command -v unshare >/dev/null 2>&1 && probe=$(mktemp -d) &&
     unshare -m --propagation private mount -t tmpfs -o size=1k none "$probe" 2>/dev/null &&
     rmdir "$probe"; then
  # Re-run this script in a private mount namespace (mounts there never show outside).
  ATTNLAB_HEADLESS_INSIDE=1 exec unshare -m --propagation private \
    bash "$root/packaging/check-headless.sh" "$build_dir" ${cmake_defs[@]+"${cmake_defs[@]}"} \
    -- "${ctest_args[@]}"
else
  [ -z "${probe:-}" ] || rmdir "$probe" 2>/dev/null || true
  mode=disable-find-package
  echo "check-headless: no private mount namespace (not root, or unshare not permitted);" \
       "falling back to CMAKE_DISABLE_FIND_PACKAGE_* and the checks below" >&2
fi

disable_args=()
if [ "$mode" = disable-find-package ]; then
  for p in Qt6Widgets Qt6Gui Qt6Svg Qt6PrintSupport QCustomPlotQt6 QCustomPlot; do
    disable_args+=("-DCMAKE_DISABLE_FIND_PACKAGE_$p=ON")
  done
fi

echo "check-headless: mode $mode, build folder $build_dir"
cmake --fresh -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DATTNLAB_BUILD_TESTS=ON -DATTNLAB_GUI=OFF ${disable_args[@]+"${disable_args[@]}"} \
  ${cmake_defs[@]+"${cmake_defs[@]}"}
# A folder that held a GUI build keeps that build's binaries, which no rule of this one
# produces: remove them, so that the checks below see only what this build made.
ninja -C "$build_dir" -t cleandead > /dev/null
cmake --build "$build_dir"

status=0
# 1. No build or link command names a GUI library, header folder or QCustomPlot.
if ninja -C "$build_dir" -t commands | grep -Eo "$gui_regex" | sort -u | grep .; then
  echo "check-headless: FAIL: the build commands above refer to GUI packages" >&2
  status=1
fi
# 2. CMake found none of them.
if grep -E '^(Qt6(Widgets|Gui|Svg|PrintSupport)|QCustomPlotQt6)_DIR:[A-Z]+=' \
     "$build_dir/CMakeCache.txt" | grep -v NOTFOUND; then
  echo "check-headless: FAIL: CMake found GUI packages (above)" >&2
  status=1
fi
# 3. No executable or loadable module links them (its own DT_NEEDED), nor needs them at
#    run time through another library (ldd's closure).
qt5_note=""
for bin in "$build_dir"/bin/* "$build_dir"/lib/*/attnlab/*.so "$build_dir"/lib/attnlab/*.so; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  if readelf -d "$bin" 2>/dev/null | grep NEEDED | grep -E "$gui_regex"; then
    echo "check-headless: FAIL: $bin links the libraries above" >&2
    status=1
  fi
  closure=$(ldd "$bin" 2>/dev/null || true)
  if grep -E "$closure_regex" <<<"$closure"; then
    echo "check-headless: FAIL: $bin needs the libraries above at run time" >&2
    status=1
  fi
  if [ -z "$qt5_note" ] && grep -q 'libQt5Widgets' <<<"$closure"; then
    via=$(for l in $(awk '/=> \//{print $3}' <<<"$closure"); do
            readelf -d "$l" 2>/dev/null | grep -q 'NEEDED.*libQt5' && basename "$l"; done |
            grep -v '^libQt5' | head -3 | tr '\n' ' ' || true)
    qt5_note="note: the system's libraries pull in Qt 5 Widgets at run time (through: ${via:-?}); not this project's doing"
  fi
done
# 4. The GUI targets really are absent, attnlab-cli present.
if [ -e "$build_dir/bin/attnlab" ] || [ ! -x "$build_dir/bin/attnlab-cli" ]; then
  echo "check-headless: FAIL: expected bin/attnlab-cli and no bin/attnlab" >&2
  status=1
fi
[ $status -eq 0 ] || exit $status
echo "check-headless: $(ls "$build_dir/bin" | wc -l) binaries, none refers to Qt Widgets/Gui/Svg/PrintSupport or QCustomPlot"
[ -z "$qt5_note" ] || echo "check-headless: $qt5_note"

ctest --test-dir "$build_dir" --output-on-failure --no-tests=error "${ctest_args[@]}"
echo "check-headless: OK ($mode)"
