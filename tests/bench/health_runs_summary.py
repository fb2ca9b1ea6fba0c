#!/usr/bin/env python3
"""What a run's attention-health stream shows, read from its run.h5 with h5py (issue 41).

    /usr/bin/python3 tests/bench/health_runs_summary.py RUN_DIR [RUN_DIR ...]

For each run: the first logged step at which each token class's sink rate (the share of
heads whose class mass exceeds epsilon) is above zero and the step it peaks, the class that
holds the most heads' top key at the last step, the minimum entropy over heads at the first
and last step (and its lowest point), S_max and the spectral norm at the first and last step,
the largest massive-activation ratio (top |h| / median |h|) and where it was, and the rank
collapse of the last layer. docs/analysis.md's "What the real runs show" quotes its output.
"""

import sys

import h5py
import numpy as np

CLASSES = ["first", "cls", "sep", "punctuation", "other"]


def series(f, name):
    g = f["series/health/" + name]
    return g["step"][()], g["value"][()].astype(np.float64)


def sink_lines(f):
    steps, rate = series(f, "sink_rate")
    out = []
    for c, name in enumerate(CLASSES):
        above = np.nonzero(rate[:, c] > 0)[0]
        if above.size == 0:
            out.append(f"  sinks on {name}: never (rate 0 at every logged step)")
            continue
        peak = int(np.argmax(rate[:, c]))
        out.append(
            f"  sinks on {name}: first at step {steps[above[0]]}, peak rate {rate[peak, c]:.2f}"
            f" at step {steps[peak]}, last {rate[-1, c]:.2f}")
    _, top_class = series(f, "top_key_class")
    counts = np.bincount(top_class[-1].astype(int).ravel(), minlength=len(CLASSES))
    held = ", ".join(f"{CLASSES[i]} {n}" for i, n in enumerate(counts) if n)
    out.append(f"  top key's class at the last step (heads): {held}")
    return out


def entropy_lines(f):
    steps, emin = series(f, "entropy_min")
    _, emean = series(f, "entropy_mean")
    _, smax = series(f, "logit_max")
    _, sigma = series(f, "spectral_norm")
    low = np.unravel_index(np.argmin(emin), emin.shape)
    return [
        f"  entropy min over heads: step {steps[0]} {emin[0].min():.3f}, last {emin[-1].min():.3f}"
        f" nats; lowest {emin[low]:.3f} at step {steps[low[0]]} (layer {low[1]} head {low[2]});"
        f" mean entropy last {emean[-1].mean():.3f}",
        f"  S_max max over heads: step {steps[0]} {smax[0].max():.2f}, last {smax[-1].max():.2f};"
        f" spectral norm max: {sigma[0].max():.3f} -> {sigma[-1].max():.3f}",
    ]


def residual_lines(f):
    steps, ratio = series(f, "massive_ratio")
    _, value = series(f, "massive_value")
    _, dim = series(f, "massive_dimension")
    _, rank = series(f, "rank_residual")
    _, cosine = series(f, "mean_cosine")
    at = np.unravel_index(np.argmax(ratio), ratio.shape)
    return [
        f"  massive ratio: largest {ratio[at]:.1f} at step {steps[at[0]]} layer {at[1]}"
        f" (top |h| {value[at[0], at[1], 0]:.2f}, dimension {int(dim[at[0], at[1], 0])});"
        f" last step per layer {np.array2string(ratio[-1], precision=1)}",
        f"  rank residual last layer: {rank[0, -1]:.3f} -> {rank[-1, -1]:.3f};"
        f" mean cosine {cosine[0, -1]:.3f} -> {cosine[-1, -1]:.3f}",
    ]


def main():
    for run in sys.argv[1:]:
        with h5py.File(run + "/run.h5", "r") as f:
            if "series/health" not in f:
                print(f"{run}: no health series")
                continue
            steps, _ = series(f, "sink_rate")
            print(f"{run}: {len(steps)} logged steps, {steps[0]} to {steps[-1]}")
            for line in sink_lines(f) + entropy_lines(f) + residual_lines(f):
                print(line)


if __name__ == "__main__":
    main()
