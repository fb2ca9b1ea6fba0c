#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the demo:
# pretraining a small encoder with MLM on WordNet's glosses (real English that Debian's
# wordnet-base installs) with the tiny configuration. It trains a SentencePiece tokenizer,
# builds the token store, trains 2,000 steps with a live progress line and evaluations,
# and writes runs/tiny/run.h5 (the run log) and checkpoints, then analyses the trained model:
# attention statistics over the validation split (runs/tiny/analysis/step-2000/) and the
# synthetic coreference probe (runs/tiny/analysis/coref-step-2000/). Running it again resumes
# (or, when finished, reports the finished run). Extra arguments go to `attnlab-cli train`,
# e.g. --set schedule.steps=4000.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release --target attnlab-cli attnlab attnlab_spbridge
build/release/bin/attnlab-cli train --config resources/configs/tiny.toml --run-dir runs/tiny "$@"
echo
build/release/bin/attnlab-cli analyze runs/tiny
echo
build/release/bin/attnlab-cli probe coref runs/tiny --distractor
echo
echo "Reports (JSON, CSV, Markdown; docs/analysis.md) are under runs/tiny/analysis/."
echo "The run log is runs/tiny/run.h5 (schema: docs/run-log.md). Loss curve with h5py:"
echo "  /usr/bin/python3 -c \"import h5py; f=h5py.File('runs/tiny/run.h5','r'); print(f['scalars/train/loss/value'][::20])\""
