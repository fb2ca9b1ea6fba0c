#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the headless configuration
# (no GUI: packaging/check-headless.sh proves it needs no Qt Widgets/Gui/QCustomPlot and runs
# its tests), then builds the release preset and runs the whole suite with CTest, last.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh

# The headless build shares the libraries' objects with the release build through ccache.
# A failure here is reported at the end; the main suite runs regardless.
headless_status=0
headless_start=$(date +%s)
bash packaging/check-headless.sh build/headless || headless_status=$?
echo "setup-and-test: headless build and tests: $(( $(date +%s) - headless_start )) s, status ${headless_status}"

cmake --preset release
cmake --build --preset release
status=0
ctest --preset release "$@" || status=$?
if [ "$headless_status" -ne 0 ]; then
  echo "setup-and-test: the headless build or its tests FAILED (status ${headless_status}; see above)" >&2
  [ "$status" -ne 0 ] || status=$headless_status
fi
exit "$status"
