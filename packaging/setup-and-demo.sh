#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the demo: pretraining
# a small encoder with MLM on WordNet's glosses (real English that Debian's wordnet-base
# installs) with the tiny configuration.
#
# With a display (DISPLAY or WAYLAND_DISPLAY set) it opens the desktop app training the demo
# live in runs/tiny: curves, attention snapshots, console, Pause / Stop / Checkpoint now.
# Without one (a server, an ssh session, CI) it says so and runs the headless twin instead:
# attnlab-cli trains (live progress line), then analyses the trained model's attention and
# probes it for coreference (reports under runs/tiny/analysis/). That path builds the headless
# configuration (build/headless: no Qt Widgets, no plot widgets), attnlab-cli and the tokenizer
# bridge only: on 2 cores it compiles about 80 s less than the GUI build's attnlab-cli, whose
# `export` renders figures with the plot widgets. ATTNLAB_HEADLESS=1 forces the headless path. Running it again resumes (or, when finished, shows the finished run). Extra
# arguments are config overrides, e.g. --set schedule.steps=4000.
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/phase-timer.sh
phase install bash packaging/install-deps.sh demo

if [[ -z "${ATTNLAB_HEADLESS:-}" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
  phase configure cmake --preset release
  ccache_zero
  phase build cmake --build --preset release --target attnlab attnlab-cli attnlab_spbridge
  ccache_report
  phases_summary
  echo "Opening the AttnLab window: it trains the tiny demo in runs/tiny and shows it live."
  exec build/release/bin/attnlab --train resources/configs/tiny.toml --run-dir runs/tiny "$@"
fi

echo "No display (DISPLAY and WAYLAND_DISPLAY are unset): running the headless demo with attnlab-cli."
echo "On a desktop the same command opens the app; 'attnlab runs/tiny' shows this run afterwards."
# Only what the headless demo runs: the desktop app is built when there is a display to open it.
phase configure cmake --preset headless
ccache_zero
phase build cmake --build --preset headless --target attnlab-cli attnlab_spbridge
ccache_report
cli=build/headless/bin/attnlab-cli
phase train "$cli" train --config resources/configs/tiny.toml --run-dir runs/tiny "$@"
echo
phase analyze "$cli" analyze runs/tiny
echo
phase probe "$cli" probe coref runs/tiny --distractor
echo
phases_summary
echo "Reports (JSON, CSV, Markdown; docs/analysis.md) are under runs/tiny/analysis/."
echo "The run log is runs/tiny/run.h5 (schema: docs/run-log.md). Loss curve with h5py:"
echo "  /usr/bin/python3 -c \"import h5py; f=h5py.File('runs/tiny/run.h5','r'); print(f['scalars/train/loss/value'][::20])\""
echo "This was the headless build (build/headless). Figures (attnlab-cli export) and the desktop"
echo "app need the GUI build: cmake --preset release && cmake --build --preset release --target"
echo "  attnlab attnlab-cli (about 7.5 minutes on 2 cores), then build/release/bin/attnlab runs/tiny"
echo "  (docs/app.md); on a desktop, this command builds that and opens the app."
