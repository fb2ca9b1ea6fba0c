#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the release preset and
# runs the whole suite with CTest. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release "$@"
