#!/usr/bin/env python3
"""The sink experiment's table and figure (docs/variants.md, "Sinks in a small MLM encoder").

usage: PYTHON table.py OUT [FIGURE.png]
  OUT: the folder run.sh filled (one run folder <mechanism>-s<seed> per run).
Reads each run's run.h5 with h5py (no AttnLab code) and prints a Markdown table: per
mechanism, the mean and the spread (sample standard deviation; n = the finished seeds) over
seeds of
  - the last validation loss (scalars/eval/loss);
  - the sink rate (Gu et al. 2025: the share of (layer, head) pairs whose mean mass on a token
    class exceeds epsilon = log.health_sink_epsilon) at the last health row, for [CLS] (the
    first position: <s> starts every probe sequence), [SEP] and punctuation, and its mean
    over the second half of training (any of the three classes: the largest of the three rates
    per row);
  - the largest class mass any head gives [CLS], [SEP] or punctuation at the last row (the
    continuous quantity behind the rate);
  - the largest massive-activation ratio (health/massive_ratio: top |h| / median |h|) over
    layers and every logged step;
  - the largest S_max (health/logit_max) over layers, heads and steps.
With a figure path it also draws the sink rate (the largest of the three classes, mean over
seeds) against the step, one line per mechanism (needs matplotlib).
"""
import math
import os
import re
import sys

import h5py
import numpy as np

MECHANISMS = ["baseline", "gate-head", "gate-element", "qk-norm", "softmax1", "softpick",
              "sigmoid", "differential"]
CLASSES = {"cls": 1, "sep": 2, "punctuation": 3}  # core/health/attention_health.h SinkClass


def series(f, name):
    g = f["series/" + name]
    return g["step"][()], g["value"][()]


def measure(path):
    with h5py.File(path, "r") as f:
        eval_loss = f["scalars/eval/loss/value"][()]
        steps, rate = series(f, "health/sink_rate")  # [N, C]
        _, mass = series(f, "health/class_mass")  # [N, L, H, C]
        _, massive = series(f, "health/massive_ratio")  # [N, L]
        _, logits = series(f, "health/logit_max")  # [N, L, H]
    cols = list(CLASSES.values())
    any_rate = rate[:, cols].max(axis=1)
    half = steps >= steps[-1] / 2
    return {
        "loss": float(eval_loss[-1]),
        **{f"rate_{k}": float(rate[-1, c]) for k, c in CLASSES.items()},
        "rate_half": float(any_rate[half].mean()),
        "mass_max": float(mass[-1][..., cols].max()),
        "massive": float(np.nanmax(massive)),
        "smax": float(np.nanmax(logits)),
        "steps": steps,
        "any_rate": any_rate,
    }


def fmt(values, digits):
    mean = sum(values) / len(values)
    if len(values) < 2:
        return f"{mean:.{digits}f}"
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def main():
    out = sys.argv[1]
    figure = sys.argv[2] if len(sys.argv) > 2 else None
    runs = {}
    for name in sorted(os.listdir(out)):
        m = re.fullmatch(r"(.+)-s(\d+)", name)
        path = os.path.join(out, name, "run.h5")
        if not m or not os.path.isfile(path):
            continue
        try:
            runs.setdefault(m.group(1), []).append(measure(path))
        except (KeyError, OSError) as e:  # a run still writing, or stopped early
            print(f"skipped {name}: {e}", file=sys.stderr)
    print("| mechanism | seeds | validation loss | sink rate [CLS] = first | [SEP] | punctuation "
          "| sink rate, 2nd half (any) | top class mass | massive ratio (max) | S_max (max) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mech in MECHANISMS:
        rs = runs.get(mech, [])
        if not rs:
            continue
        col = lambda k, d: fmt([r[k] for r in rs], d)
        print(f"| {mech} | {len(rs)} | {col('loss', 3)} | {col('rate_cls', 2)} | "
              f"{col('rate_sep', 2)} | {col('rate_punctuation', 2)} | {col('rate_half', 2)} | "
              f"{col('mass_max', 2)} | {col('massive', 1)} | {col('smax', 1)} |")
    if figure:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
        for mech in MECHANISMS:
            rs = runs.get(mech, [])
            if not rs:
                continue
            n = min(len(r["steps"]) for r in rs)
            mean = np.mean([r["any_rate"][:n] for r in rs], axis=0)
            # A running mean over 10 rows (100 steps): single rows jump in steps of 1/4.
            smooth = np.convolve(mean, np.ones(10) / 10, mode="valid")
            ax.plot(rs[0]["steps"][9:n], smooth, label=f"{mech} ({len(rs)} seeds)")
        ax.set_xlabel("step")
        ax.set_ylabel("sink rate ([CLS], [SEP] or punctuation)")
        ax.set_title("Sink rate of the tiny MLM encoder (2 layers x 2 heads), mean over seeds, "
                     "100-step running mean", fontsize=9)
        ax.set_ylim(-0.01, 0.3)  # the rates stay far below 1 at this scale
        ax.legend(fontsize=8, ncol=2)
        fig.tight_layout()
        fig.savefig(figure)
        print(f"figure: {figure}", file=sys.stderr)


if __name__ == "__main__":
    main()
