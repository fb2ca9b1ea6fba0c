#!/usr/bin/env bash
# Builds and runs the desktop-app benchmark offscreen: GUI-thread stalls while the app
# trains, app vs engine-alone throughput, live curve latency, opening a large finished log
# (figures and targets printed; the last line is key=value).
# usage: tests/bench/run_gui_bench.sh [--steps N] [--work DIR] [--threads N]
#   --work DIR keeps the prepared data (tokenizer, token store) and the synthesised log
#   between runs; ATTNLAB_BENCH_BIN=<path to bench_gui> runs that binary without building.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${ATTNLAB_BENCH_BIN:-}
if [[ -z $bin ]]; then
  cmake --preset release >/dev/null
  cmake --build --preset release --target bench_gui
  bin=build/release/bin/bench_gui
fi
export QT_QPA_PLATFORM=offscreen
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
exec "$bin" "$@"
