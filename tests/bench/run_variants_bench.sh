#!/usr/bin/env bash
# Builds and runs the attention-variants benchmark (ms per training step of every
# mechanism against the plain encoder, interleaved; targets from docs/variants.md).
# usage: tests/bench/run_variants_bench.sh [--steps N] [--threads N] [--breakdown] [--only a,b]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
cmake --build --preset release --target bench_variants
build/release/bin/bench_variants "$@"
