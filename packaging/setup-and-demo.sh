#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the demo.
# The demo at this stage checks the whole stack on real data: LibTorch, the BLAS rate,
# a SentencePiece tokenizer trained on WordNet's glosses, LibTorch again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
cmake --preset release
cmake --build --preset release --target attnlab-cli attnlab attnlab_spbridge
build/release/bin/attnlab-cli smoke --work-dir build/demo "$@"
