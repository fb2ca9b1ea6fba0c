#!/usr/bin/env bash
# The package test: builds the Debian package from the release build, installs it with apt
# as a user would, runs the installed programs from a temporary folder outside the checkout
# (with the checkout hidden, so nothing can come from the source or build tree), validates
# the desktop entry and the AppStream metainfo, runs lintian, then purges the package and
# checks that nothing of it is left under /usr.
#
#   bash packaging/test-package.sh [BUILD_DIR]        (as root; BUILD_DIR: build/release)
#
# It installs and removes a system package, so it is not part of the CTest suite: CI runs it
# after the suite (.ci/run). Needs the packages of packaging/install-deps.sh test and package, and a configured
# BUILD_DIR (it runs the incremental build and cpack itself). Keeps the .deb, the logs and
# the app's screenshot in BUILD_DIR/package-test/. The last line says PASS or FAIL; the exit
# status is non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build_dir=$(realpath -m "${1:-build/release}")
start=$(date +%s)

failures=()
say() { echo "package-test: $*"; }
fail() {
  echo "package-test: FAIL: $*" >&2
  failures+=("$*")
}
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, records a failure when it fails
  local what=$1
  shift
  if "$@"; then say "ok: $what"; else fail "$what"; fi
}

work=""
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then
    say "removing the package after an early stop"
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq attnlab >/dev/null 2>&1 || true
  fi
  [ -z "$work" ] || rm -rf "$work"
}
trap cleanup EXIT

finish() {
  local took=$(($(date +%s) - start))
  if [ ${#failures[@]} -eq 0 ]; then
    say "PASS in ${took} s (${deb_name:-no package}, ${deb_size:-?})"
    exit 0
  fi
  say "FAIL in ${took} s: ${#failures[@]} check(s) failed:"
  printf 'package-test:   - %s\n' "${failures[@]}"
  exit 1
}
stop() {
  fail "$*"
  finish
}

[ "$(id -u)" -eq 0 ] || stop "run as root: the test installs and purges a system package"
for tool in cmake cpack dpkg-deb dpkg-architecture apt-get lintian desktop-file-validate \
            appstreamcli xvfb-run; do
  command -v "$tool" >/dev/null || stop "$tool not found (bash packaging/install-deps.sh package)"
done
[ -f "$build_dir/CMakeCache.txt" ] ||
  stop "$build_dir is not a configured build folder (cmake --preset release)"
if dpkg-query -W -f='${Status}' attnlab 2>/dev/null | grep -q "install ok installed"; then
  stop "attnlab is already installed; purge it first (apt-get purge attnlab)"
fi

arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(sed -n 's/^project(AttnLab VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
app_id=$(sed -n 's/^ATTNLAB_APP_ID:STRING=//p' "$build_dir/CMakeCache.txt")
[ -n "$version" ] && [ -n "$app_id" ] || stop "cannot read the version or the application id"
out=$build_dir/package-test
mkdir -p "$out"
work=$(mktemp -d /tmp/attnlab-package-test.XXXXXX)
chmod 755 "$work"

# --- 1. build the package -----------------------------------------------------------------
say "building $build_dir and the package (version $version)"
cmake --build "$build_dir" >"$out/build.log" 2>&1 || stop "build failed (see $out/build.log)"
rm -f "$build_dir"/attnlab_*.deb
(cd "$build_dir" && cpack -G DEB) >"$out/cpack.log" 2>&1 || stop "cpack failed (see $out/cpack.log)"
debs=("$build_dir"/attnlab_*.deb)
[ -f "${debs[0]}" ] || stop "cpack made no attnlab_*.deb (see $out/cpack.log)"
deb=${debs[0]}
deb_name=$(basename "$deb")
deb_size=$(du -h "$deb" | cut -f1)
cp "$deb" "$out/"
say "made $deb_name ($deb_size)"

# --- 2. the package's fields and contents ---------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
check "Package is attnlab" test "$(field Package)" = attnlab
check "Version is the project version $version" test "$(field Version)" = "$version"
check "Section is science" test "$(field Section)" = science
check "Maintainer is set (Name <address>)" grep -Eq '^[^<]+ <[^@ ]+@[^> ]+>$' <<<"$(field Maintainer)"
check "Description has a synopsis and a long text" \
  test "$(field Description | wc -l)" -ge 5
depends=$(field Depends)
say "Depends: $depends"
for dep in libopenblas0-openmp wordnet-base libtorch1 libqt6widgets6 libhdf5 libzstd1 libc6; do
  check "Depends names $dep" grep -q "\\b$dep" <<<"$depends"
done
check "python3-h5py is only suggested" \
  bash -c '[ "$1" = python3-h5py ] && ! grep -q h5py <<<"$2$3"' _ \
  "$(field Suggests)" "$depends" "$(field Recommends)"

contents=$work/contents
dpkg-deb -x "$deb" "$contents"
for path in usr/bin/attnlab usr/bin/attnlab-cli "usr/lib/$arch/attnlab/libattnlab_spbridge.so" \
            usr/share/attnlab/configs/tiny.toml usr/share/doc/attnlab/README.md \
            usr/share/doc/attnlab/docs/architecture.md usr/share/doc/attnlab/copyright \
            usr/share/doc/attnlab/changelog.gz usr/share/man/man1/attnlab.1.gz \
            usr/share/man/man1/attnlab-cli.1.gz "usr/share/applications/$app_id.desktop" \
            "usr/share/metainfo/$app_id.metainfo.xml" \
            "usr/share/icons/hicolor/scalable/apps/$app_id.svg" \
            "usr/share/icons/hicolor/48x48/apps/$app_id.png" \
            "usr/share/icons/hicolor/256x256/apps/$app_id.png"; do
  check "the package holds /$path" test -f "$contents/$path"
done
check "everything lies under /usr" \
  bash -c '[ -z "$(ls -A "$1" | grep -vx usr)" ]' _ "$contents"
# Text files must not point into the checkout (binaries carry __FILE__ names of sources in
# their messages, which nothing opens).
check "no installed text file or man page names the checkout $root" \
  bash -c '! grep -rIl -- "$1" "$2" && ! zcat "$2"/usr/share/man/man1/*.gz | grep -F -- "$1"' \
  _ "$root" "$contents"
check "the man page attnlab-cli(1) documents train --config" \
  bash -c 'zcat "$1" | grep -q "config"' _ "$contents/usr/share/man/man1/attnlab-cli.1.gz"

# --- 3. lintian -------------------------------------------------------------------------------
lintian --fail-on error --display-level '>=warning' "$deb" >"$out/lintian.log" 2>&1
lintian_status=$?
grep -v '^running with root privileges' "$out/lintian.log" | sed 's/^/lintian: /'
say "lintian: $(grep -c '^E:' "$out/lintian.log") error(s), $(grep -c '^W:' "$out/lintian.log") warning(s)"
check "lintian reports no errors" test "$lintian_status" -eq 0

# --- 4. install ---------------------------------------------------------------------------
find /usr -xdev | sort >"$work/usr-before.txt"
say "installing with apt-get install -y ./$deb_name"
installed=1
if ! (cd "$out" && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        "./$deb_name") >"$out/apt-install.log" 2>&1; then
  stop "apt-get install failed (see $out/apt-install.log)"
fi
dpkg -L attnlab >"$work/installed-files.txt"
check "the desktop entry is valid (desktop-file-validate)" \
  desktop-file-validate "/usr/share/applications/$app_id.desktop"
check "the metainfo is valid (appstreamcli validate --no-net)" \
  appstreamcli validate --no-net "/usr/share/metainfo/$app_id.metainfo.xml"
check "the installed attnlab-cli is /usr/bin/attnlab-cli" test "$(command -v attnlab-cli)" = /usr/bin/attnlab-cli

# --- 5. run the installed programs outside the tree ----------------------------------------
# outside [--hide DIR]... LOG COMMAND...: runs COMMAND in the work folder with a clean
# environment, as root in a private mount namespace where the checkout, the build folder and
# each DIR are empty read-only folders. Output to LOG (stdout and stderr).
isolate=0
if command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null; then
  isolate=1
  say "the checkout $root is hidden while the installed programs run"
else
  say "note: no private mount namespace here; the checkout stays visible during the runs"
fi
mkdir -p "$work/home" "$work/runs"
outside() {
  local hide=("$root")
  case "$build_dir/" in "$root"/*) ;; *) hide+=("$build_dir") ;; esac
  while [ "$1" = --hide ]; do
    hide+=("$2")
    shift 2
  done
  local log=$1
  shift
  local env_args=(env -u ATTNLAB_SPBRIDGE -u ATTNLAB_CONFIG_DIR -u XDG_CONFIG_HOME
                  HOME="$work/home" PATH=/usr/bin:/bin)
  if [ "$isolate" = 1 ]; then
    unshare -m --propagation private bash -c '
      work=$1 n=$2; shift 2
      for ((i = 0; i < n; i++)); do mount -t tmpfs -o ro,size=4k none "$1" || exit 97; shift; done
      cd "$work" && exec "$@"' _ "$work" "${#hide[@]}" "${hide[@]}" "${env_args[@]}" "$@" \
      >"$log" 2>&1
  else
    (cd "$work" && "${env_args[@]}" "$@") >"$log" 2>&1
  fi
}

outside "$out/cli-version.log" attnlab-cli --version
check "attnlab-cli --version prints 'attnlab-cli $version'" \
  grep -qx "attnlab-cli $version" "$out/cli-version.log"
outside "$out/app-version.log" env QT_QPA_PLATFORM=offscreen attnlab --version
check "attnlab --version prints 'attnlab $version'" grep -qx "attnlab $version" "$out/app-version.log"

# The tiny preset by name, found in /usr/share/attnlab/configs. Its warm-up (100 steps)
# must not exceed the 20 steps, so it is shortened too.
say "training the tiny preset for 20 steps (WordNet corpus, tokenizer, token store)"
run=$work/runs/tiny
outside "$out/train.log" attnlab-cli train --config tiny --set schedule.steps=20 \
  --set schedule.warmup_steps=10 --run-dir "$run" --plain
train_status=$?
tail -n 3 "$out/train.log" | sed 's/^/train: /'
check "attnlab-cli train --config tiny exits 0" test "$train_status" -eq 0
check "the run finished its 20 steps" grep -q "done: 20 steps" "$out/train.log"
check "the run holds run.h5, config.toml and a checkpoint" \
  bash -c 'test -f "$1/run.h5" && test -f "$1/config.toml" && ls "$1"/checkpoints/step-*.h5 >/dev/null' _ "$run"

outside "$out/analyze.log" attnlab-cli analyze "$run" --plain
analyze_status=$?
tail -n 2 "$out/analyze.log" | sed 's/^/analyze: /'
check "attnlab-cli analyze exits 0" test "$analyze_status" -eq 0
check "analyze wrote analysis.json" bash -c 'ls "$1"/analysis/step-*/analysis.json >/dev/null' _ "$run"

say "opening the run in the app under xvfb-run and taking a screenshot"
outside "$out/screenshot.log" timeout 300 xvfb-run -a attnlab --screenshot "$work/shot.png" "$run"
shot_status=$?
cp -f "$work/shot.png" "$out/shot.png" 2>/dev/null
check "xvfb-run attnlab --screenshot exits 0" test "$shot_status" -eq 0
check "the screenshot is a PNG of the window (> 20 kB)" \
  bash -c 'test "$(head -c 8 "$1" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
           test "$(stat -c %s "$1")" -gt 20000' _ "$work/shot.png"

# Faults: wordnet-base gone (its folder hidden), and the bridge gone from its place.
if [ "$isolate" = 1 ]; then
  outside --hide /usr/share/wordnet "$out/no-wordnet.log" \
    attnlab-cli train --config tiny --run-dir "$work/runs/no-wordnet" --plain
else
  mkdir -p "$work/empty"
  outside "$out/no-wordnet.log" attnlab-cli train --config tiny --run-dir \
    "$work/runs/no-wordnet" --plain --set corpus.wordnet_dir="$work/empty"
fi
no_wordnet_status=$?
sed 's/^/without wordnet-base: /' "$out/no-wordnet.log" | grep -i error
check "without WordNet, train fails naming the package wordnet-base" \
  bash -c '[ "$1" -ne 0 ] && grep -q "wordnet-base" "$2"' _ "$no_wordnet_status" "$out/no-wordnet.log"
if [ "$isolate" = 1 ]; then
  outside --hide "/usr/lib/$arch/attnlab" "$out/no-bridge.log" \
    attnlab-cli inspect "$run" --text "a plant or animal that is atypically small" \
    --out "$work/inspect.h5"
  no_bridge_status=$?
  sed 's/^/without the bridge: /' "$out/no-bridge.log" | head -n 8
  check "without the bridge, the error names every path tried" \
    bash -c '[ "$1" -ne 0 ] && grep -q "tried:" "$2" &&
             grep -q "/usr/lib/$3/attnlab/libattnlab_spbridge.so (not found)" "$2" &&
             grep -q "/usr/bin/libattnlab_spbridge.so (not found)" "$2"' \
    _ "$no_bridge_status" "$out/no-bridge.log" "$arch"
else
  say "note: the missing-bridge check needs a private mount namespace; skipped"
fi

# --- 6. purge and look for leftovers --------------------------------------------------------
say "purging the package"
if DEBIAN_FRONTEND=noninteractive apt-get purge -y attnlab >"$out/apt-purge.log" 2>&1; then
  installed=0
  say "ok: apt-get purge attnlab"
else
  fail "apt-get purge attnlab (see $out/apt-purge.log)"
fi
check "dpkg no longer knows attnlab" bash -c '! dpkg-query -W attnlab >/dev/null 2>&1'
leftovers=()
while IFS= read -r path; do
  [ -e "$path" ] || [ -L "$path" ] || continue
  # A folder or file another package owns (/usr/share/man/man1, ...) stays, rightly.
  dpkg -S "$path" >/dev/null 2>&1 || leftovers+=("$path")
done <"$work/installed-files.txt"
find /usr -xdev | sort >"$work/usr-after.txt"
while IFS= read -r path; do
  # New files of packages apt installed as dependencies, and the desktop and icon caches
  # that the triggers of desktop-file-utils and gtk-update-icon-cache regenerate, are not
  # attnlab's.
  case "$path" in
    /usr/share/applications/mimeinfo.cache | /usr/share/icons/*/icon-theme.cache) continue ;;
  esac
  dpkg -S "$path" >/dev/null 2>&1 || leftovers+=("$path")
done < <(comm -13 "$work/usr-before.txt" "$work/usr-after.txt")
if [ ${#leftovers[@]} -gt 0 ]; then printf 'package-test: left behind: %s\n' "${leftovers[@]}"; fi
check "nothing of the package is left under /usr" test ${#leftovers[@]} -eq 0

finish
