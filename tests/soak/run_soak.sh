#!/usr/bin/env bash
# The soak: the desktop app (offscreen) trains the bench config for MINUTES (default 20)
# with its live views in turn in front, while python3/h5py reads the run log every second;
# prints memory growth after warm-up, GUI-thread stalls, the reader's errors and whether
# the log and checkpoints are complete, and exits non-zero when a target is missed.
# usage: tests/soak/run_soak.sh [MINUTES] [WORK_DIR]
# CI can bound it with `timeout`; the run itself takes MINUTES plus set-up (data
# preparation of the bench corpus, about a minute) and the final checkpoint.
set -euo pipefail
cd "$(dirname "$0")/../.."
minutes=${1:-20}
work=${2:-}
cmake --preset release >/dev/null
cmake --build --preset release --target soak_app
export QT_QPA_PLATFORM=offscreen
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
args=(--minutes "$minutes")
[[ -n $work ]] && args+=(--work "$work")
exec build/release/bin/soak_app "${args[@]}"
