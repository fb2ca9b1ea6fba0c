#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the release preset (every
# target: the app, attnlab-cli, the tests and the benchmarks) and runs the whole suite with
# CTest. Arguments go to CTest (e.g. -R trainer). Prints each phase's duration and the
# build's ccache hits. Exits non-zero on any failure.
# The headless check (packaging/check-headless.sh: the build without Qt's GUI packages) and
# the LibTorch 2.x line run in CI (.ci/run), one build for both.
set -euo pipefail
cd "$(dirname "$0")/.."
source packaging/phase-timer.sh
phase install bash packaging/install-deps.sh test
# The tokenizer tests' reference library from Python's package index; without it (no network)
# those checks are skipped, each saying so, and the rest of the suite still runs.
phase python bash packaging/setup-hf-python.sh ||
  echo "setup-and-test: the tokenizers library could not be installed; its checks will be skipped"
phase configure cmake --preset release
ccache_zero
phase build cmake --build --preset release
ccache_report
status=0
phase tests ctest --preset release "$@" || status=$?
phases_summary
exit "$status"
