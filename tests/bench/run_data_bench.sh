#!/usr/bin/env bash
# Builds and runs the data-preparation benchmark (issue 45): plain-text corpora of 0.25, 0.5
# and 1 GB generated from the WordNet glosses, prepared with an existing tokenizer, each in
# its own process; speed, peak memory per size and the 2-thread speedup. Run it on an idle
# machine. Arguments pass through.
# usage: tests/bench/run_data_bench.sh [--sizes-mb 256,512,1024[,4096]] [--speedup-mb MB]
#                                      [--threads N] [--work DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
cmake --build --preset release --target bench_data
build/release/bin/bench_data "$@"
