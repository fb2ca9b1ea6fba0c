#!/usr/bin/env bash
# Issue 30's measurement: ASA's masking proportion per layer over 600 steps under today's
# defaults (the paper's conventions), the official code's conventions, and the defaults at
# tau = 1e-3, with the MLM loss of each against the baseline (docs/variants.md, "ASA: what
# to expect at small scale"). Two lanes of one thread each on a 2-core machine (the official
# conventions take about five times as long per step as the others together):
#
#   bash tests/bench/run_asa_conventions.sh OUT_DIR [STEPS]     # default 600 steps
#
# A stopped run resumes where it stopped when the command is run again (each run stops with
# a checkpoint). Needs a release build (build/release, or ATTNLAB_CLI=path/to/attnlab-cli).
set -euo pipefail
out=${1:?usage: run_asa_conventions.sh OUT_DIR [STEPS]}
steps=${2:-600}
cli=${ATTNLAB_CLI:-build/release/bin/attnlab-cli}
configs=resources/configs
mkdir -p "$out"

train() {  # name config [--set ...]
  local name=$1 config=$2
  shift 2
  "$cli" train --config "$configs/$config" --run-dir "$out/$name" --plain \
    --set train.threads=1 --stop-after-step "$steps" "$@" >"$out/$name.log" 2>&1
  echo "$name: $(tail -n 3 "$out/$name.log" | head -n 1)"
}

train official variant-asa-official.toml &
official=$!
train defaults variant-asa.toml
train tau-1e-3 variant-asa.toml --set attention.asa.tau=0.001
train baseline variant-baseline.toml
wait "$official"
"${ATTNLAB_PYTHON:-/usr/bin/python3}" tests/bench/asa_mask_table.py --baseline "$out/baseline" \
  "defaults (tau 0.1)=$out/defaults" "official conventions=$out/official" \
  "defaults, tau 1e-3=$out/tau-1e-3"
