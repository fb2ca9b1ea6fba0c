#!/usr/bin/env bash
# Issue 27's benchmark: rollout, norm-based attention and the logit lens for one input on a
# BERT-base-shaped model (bench_beyond_weights), beside the same norms written straight from
# Kobayashi et al.'s formula in PyTorch (norms_explicit_pytorch.py: a [12, T, T, 768] tensor
# per layer; at 512 tokens it needs 9.7 GB and is not run), and the Inspect tab's view switch
# (bench_app_analysis, when built). Run on an idle machine. Usage:
#   tests/bench/run_beyond_weights_bench.sh [BUILD_DIR]
# Last line: rollout_ms=<n> norms_ms=<n> lens_ms=<n> view_switch_ms=<n>
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
export OMP_WAIT_POLICY=PASSIVE  # as the app sets it: no spinning threads between passes
# OpenBLAS's kernels as attnlab and attnlab-cli choose them where OpenBLAS falls back to narrow
# ones (core/runtime/blas_kernels.h), for the benchmarks and the PyTorch reference alike; set
# OPENBLAS_CORETYPE to measure others (Prescott: what OpenBLAS 0.3.21 picks on an unknown CPU).
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  flags=$(grep -m1 '^flags' /proc/cpuinfo)
  if [[ $flags == *avx512f* && $flags == *avx512bw* && $flags == *avx512dq* && $flags == *avx512vl* && $flags == *avx512cd* ]]; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif [[ $flags == *avx2* && $flags == *fma* ]]; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset, as OpenBLAS chooses}"
for tokens in 128 256 512; do
  /usr/bin/python3 tests/bench/norms_explicit_pytorch.py "$tokens" 3 2
done
"$build/bin/bench_beyond_weights" --tokens 128 --repeats 3 | grep "norms per layer"
switch=-1
if [ -x "$build/bin/bench_app_analysis" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  line=$("$build/bin/bench_app_analysis" --work "$work" | tee /dev/stderr | tail -n 1)
  switch=$(sed -n 's/.*view_switch_ms=\([0-9.]*\).*/\1/p' <<< "$line")
  switch=${switch:--1}
fi
"$build/bin/bench_beyond_weights" --tokens 512 --view-switch-ms "$switch"
