#!/usr/bin/env bash
# The sink experiment of docs/variants.md ("Sinks in a small MLM encoder"): the tiny recipe
# (resources/configs/tiny.toml) with each of today's mechanisms, several seeds, one CPU
# thread per run, JOBS runs at a time. Seed-major order, so an interrupted sweep still has
# whole seeds. A finished run (its final checkpoint exists) is skipped, so rerunning resumes.
#
# usage: experiments/sink-mechanisms/run.sh OUT [STEPS=2000] [SEEDS="1 2 3"] [JOBS=2]
#   ATTNLAB_CLI: the attnlab-cli to run (default build/release/bin/attnlab-cli)
# then:  PYTHON table.py OUT   (a Python with h5py, numpy and matplotlib)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: run.sh OUT [STEPS] [SEEDS] [JOBS]}"
steps="${2:-2000}"
seeds="${3:-1 2 3}"
jobs="${4:-2}"
cli="${ATTNLAB_CLI:-$root/build/release/bin/attnlab-cli}"
mkdir -p "$out"

# name: the overrides that make the mechanism (docs/variants.md, docs/configuration.md)
mechanisms=(
  "baseline:"
  "gate-head:attention.output_gate=\"head\""
  "gate-element:attention.output_gate=\"element\""
  "qk-norm:attention.qk_norm=\"rms\""
  "softmax1:attention.normalizer=\"softmax1\""
  "softpick:attention.normalizer=\"softpick\""
  "sigmoid:attention.normalizer=\"sigmoid\""
  "differential:attention.differential=true"
)

train() {  # name seed [override] [tokenizer]
  local dir="$out/$1-s$2"
  local final
  final="$(printf '%s/checkpoints/step-%07d.h5' "$dir" "$steps")"
  [[ -f "$final" ]] && return 0
  local args=(train --config "$root/resources/configs/tiny.toml" --run-dir "$dir"
              --set "run.name=\"$1-s$2\"" --set "run.seed=$2" --set "schedule.steps=$steps"
              --set "train.threads=1")
  [[ -n "${3:-}" ]] && args+=(--set "$3")
  [[ -n "${4:-}" ]] && args+=(--set "tokenizer.model=\"$4\"")
  rm -rf "$dir"
  "$cli" "${args[@]}" >"$dir.log" 2>&1 || { echo "failed: $dir (see $dir.log)"; return 1; }
  echo "done: $dir"
}

# The tokenizer once (the first baseline run trains it); every other run loads it.
first="${seeds%% *}"
train baseline "$first"
tokenizer="$out/baseline-s$first/tokenizer.model"
for seed in $seeds; do
  for entry in "${mechanisms[@]}"; do
    name="${entry%%:*}"
    [[ "$name-s$seed" == "baseline-s$first" ]] && continue
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
    train "$name" "$seed" "${entry#*:}" "$tokenizer" &
  done
done
wait
