#!/usr/bin/env bash
# Times the edit-compile loop (docs/building.md, "Build times"): for each file, appends a
# comment line, rebuilds attnlab-cli in BUILD_DIR without ccache and prints the seconds, the
# number of compiles and of links; then restores the file (also on failure or Ctrl+C) and
# rebuilds once more so the tree is left as it was.
# Usage: bash packaging/time-rebuilds.sh [BUILD_DIR] [FILE...]
# (default build/release; core/train/trainer.cpp core/config/run_config.h)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(core/train/trainer.cpp core/config/run_config.h)
[ -f "$build/CMakeCache.txt" ] || { echo "time-rebuilds: $build is not a configured build folder" >&2; exit 2; }
export CCACHE_DISABLE=1
saved=$(mktemp -d)
log="$saved/build.log"
current=""
restore() { if [ -n "$current" ]; then cp "$saved/original" "$current"; fi; }
trap 'restore; rm -rf "$saved"' EXIT
cmake --build "$build" --target attnlab-cli > "$log" 2>&1 || { tail -n 30 "$log"; exit 1; }
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "time-rebuilds: no file $f" >&2; exit 2; }
  cp "$f" "$saved/original"
  current=$f
  echo "// time-rebuilds: one-line edit" >> "$f"
  start=$(date +%s%N)
  status=0
  cmake --build "$build" --target attnlab-cli > "$log" 2>&1 || status=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  restore
  current=""
  [ "$status" -eq 0 ] || { tail -n 30 "$log"; exit 1; }
  printf 'time-rebuilds: %s: %d.%01d s (%d compiles, %d links)\n' "$f" $((ms / 1000)) \
    $(((ms % 1000) / 100)) "$(grep -c 'Building CXX' "$log" || true)" "$(grep -c 'Linking' "$log" || true)"
done
cmake --build "$build" --target attnlab-cli > "$log" 2>&1
