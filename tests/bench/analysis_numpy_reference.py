#!/usr/bin/python3
"""The numpy/scipy way of computing what bench_analysis computes, for speed and agreement.

Reads the pool bench_analysis --write-pool wrote (attention_pool.npy [K, L, H, T, T] float32,
lengths.npy [K]), streams sequence i = pool[i % K] for i < --sequences, and per sequence
computes, vectorised over all layers, heads and rows at once:
  entropy  scipy.stats.entropy(rows, axis=-1)                     (nats)
  JSD      scipy.spatial.distance.jensenshannon(layer l, layer l-1, axis=-1, base=2) ** 2
with padding excluded the same way: rows and keys cut to the sequence's length (both scipy
functions renormalise each row). It keeps the values of the (layer, head) pairs the C++
benchmark prints medians for and compares those medians with the C++ run's (--cpp FILE):
they must agree to the histogram resolution plus the gap between the two sorted values the
exact median sits between. Prints sequences/second; with --cpp-1024/--cpp-8192 prints the
comparison and, last, `analysis_vs_numpy=<C++ seq/s / numpy seq/s> peak_mb=<C++ peak at 8192>`.
"""

import argparse
import re
import resource
import sys
import time

import numpy as np

try:
    from scipy.spatial.distance import jensenshannon
    from scipy.stats import entropy
except ImportError:  # pragma: no cover - reported, not hidden
    sys.exit("analysis_numpy_reference.py: scipy is missing (apt-get install -y python3-scipy)")


def parse_cpp(path):
    """The figures bench_analysis printed."""
    text = open(path).read()
    figures = {}
    for key in ("sequences", "seconds", "sequences_per_second", "peak_mb", "accumulator_mb",
                "resolution_entropy", "resolution_jsd", "threads"):
        m = re.search(r"\b%s=([0-9.eE+-]+)" % key, text)
        if m:
            figures[key] = float(m.group(1))
    figures["medians"] = {}
    for kind, l, h, v in re.findall(r"^median_(entropy|jsd) (\d+) (\d+) (\S+)$", text, re.M):
        figures["medians"][(kind, int(l), int(h))] = float(v)
    return figures


def numpy_statistics(pool, lengths, sequences, picks):
    """Entropy and adjacent-layer JSD of every row; returns seconds and the picked values."""
    K = pool.shape[0]
    values = {key: [] for key in picks}
    start = time.perf_counter()
    for i in range(sequences):
        k = i % K
        n = int(lengths[k])
        x = pool[k, :, :, :n, :n]  # [L, H, n, n], padding rows and keys dropped
        ent = entropy(x, axis=-1)  # [L, H, n]
        jsd = jensenshannon(x[1:], x[:-1], axis=-1, base=2) ** 2  # [L-1, H, n]
        for kind, l, h in picks:
            values[(kind, l, h)].append(ent[l, h] if kind == "entropy" else jsd[l - 1, h])
    seconds = time.perf_counter() - start
    return seconds, {key: np.concatenate(v) for key, v in values.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", required=True, help="folder with attention_pool.npy, lengths.npy")
    ap.add_argument("--sequences", type=int, default=128)
    ap.add_argument("--cpp-1024", help="bench_analysis output for 1,024 sequences")
    ap.add_argument("--cpp-8192", help="bench_analysis output for 8,192 sequences")
    args = ap.parse_args()

    pool = np.load(args.pool + "/attention_pool.npy", mmap_mode="r")
    lengths = np.load(args.pool + "/lengths.npy")
    small = parse_cpp(args.cpp_1024) if args.cpp_1024 else None
    big = parse_cpp(args.cpp_8192) if args.cpp_8192 else None
    reference = big or small
    picks = sorted(reference["medians"]) if reference else [("entropy", 0, 0), ("jsd", 1, 0)]

    seconds, values = numpy_statistics(pool, lengths, args.sequences, picks)
    rate = args.sequences / seconds
    print("numpy/scipy %s, scipy entropy + jensenshannon(base=2)**2, one sequence [L,H,n,n] per "
          "call" % np.__version__)
    print("numpy_sequences=%d numpy_seconds=%.3f numpy_sequences_per_second=%.2f numpy_peak_mb=%.1f"
          % (args.sequences, seconds, rate,
             resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    if reference is None:
        return 0

    ok = True
    for key in picks:
        kind, l, h = key
        v = np.sort(values[key])
        k = 0.5 * (len(v) - 1)
        gap = float(v[int(np.ceil(k))] - v[int(np.floor(k))])
        ours = float(np.median(v))
        resolution = reference["resolution_" + kind]
        for name, run in (("1024", small), ("8192", big)):
            if run is None:
                continue
            cpp = run["medians"][key]
            tolerance = resolution + gap + 1e-5
            agree = abs(cpp - ours) <= tolerance
            ok &= agree
            print("median %-7s layer %2d head %2d: numpy %.6f  C++(%s) %.6f  |diff| %.2e <= %.2e %s"
                  % (kind, l, h, ours, name, cpp, abs(cpp - ours), tolerance,
                     "ok" if agree else "DISAGREE"))
    for name, run in (("1024", small), ("8192", big)):
        if run:
            print("cpp_%s: seconds=%.3f sequences_per_second=%.1f threads=%d peak_mb=%.1f "
                  "accumulator_mb=%.2f" % (name, run["seconds"], run["sequences_per_second"],
                                           run.get("threads", 0), run["peak_mb"],
                                           run["accumulator_mb"]))
    print("threads=%d (C++; numpy/scipy run on one) numpy_sequences=%d (of the same cycled stream; "
          "all 8,192 would take ~%.0f s)" % (reference.get("threads", 0), args.sequences,
                                             8192 / rate))
    if small and big:
        print("peak_mb_1024=%.1f peak_mb_8192=%.1f" % (small["peak_mb"], big["peak_mb"]))
    print("medians_agree=%s" % ("yes" if ok else "NO"))
    print("analysis_vs_numpy=%.1f peak_mb=%.1f"
          % (reference["sequences_per_second"] / rate, reference["peak_mb"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
