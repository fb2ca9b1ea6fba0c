#!/usr/bin/env bash
# Builds and runs the pretraining benchmark (engine vs Python PyTorch, same config).
# usage: tests/bench/run_pretraining_bench.sh [--steps N] [--threads N]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
cmake --build --preset release --target bench_pretraining
build/release/bin/bench_pretraining "$@"
