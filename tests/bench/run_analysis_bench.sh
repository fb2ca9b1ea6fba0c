#!/usr/bin/env bash
# Attention statistics (entropy + adjacent-layer JSD, 12 layers x 12 heads, T = 128) in C++
# against numpy/scipy on the same synthetic attention. C++ streams 1,024 and 8,192 sequences
# (separate processes, so each peak RSS is its own); numpy/scipy a prefix of the same stream.
# Last line: analysis_vs_numpy=<C++ seq/s over numpy seq/s> peak_mb=<C++ peak RSS at 8,192>.
# usage: tests/bench/run_analysis_bench.sh [--build-dir DIR] [--numpy-sequences N] [--threads N]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=""
numpy_sequences=128
threads=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$2"; shift 2 ;;
    --numpy-sequences) numpy_sequences="$2"; shift 2 ;;
    --threads) threads=(--threads "$2"); shift 2 ;;
    *) sed -n '2,7p' "$0" >&2; exit 2 ;;
  esac
done
if [ -z "$build" ]; then
  cmake --preset release >/dev/null
  build=build/release
fi
cmake --build "$build" --target bench_analysis >/dev/null
/usr/bin/python3 -c 'import numpy, scipy' || {
  echo "numpy/scipy missing for /usr/bin/python3 (apt-get install -y python3-numpy python3-scipy)" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/bench_analysis" --write-pool "$tmp"
for n in 1024 8192; do
  "$build/bin/bench_analysis" --pool "$tmp" --sequences "$n" "${threads[@]}" | tee "$tmp/cpp_$n.txt"
done
/usr/bin/python3 tests/bench/analysis_numpy_reference.py --pool "$tmp" \
  --sequences "$numpy_sequences" --cpp-1024 "$tmp/cpp_1024.txt" --cpp-8192 "$tmp/cpp_8192.txt"
