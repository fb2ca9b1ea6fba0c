#!/usr/bin/env python3
"""Prints the ASA masking-proportion table of docs/variants.md from run logs, read with h5py.
Layers are numbered from 0, as the app and the figures number them.

    python3 tests/bench/asa_mask_table.py --baseline RUN NAME=RUN [NAME=RUN ...]

For each named ASA run: `series/asa/mask_proportion` per layer at the table's steps (each a
mean over the logging interval that ends there, as the engine logs it), then the MLM loss
(`scalars/train/loss`, the interval mean) and the validation loss (`scalars/eval/loss`) of
every run, the baseline's beside them, at the steps all runs logged. Independent of the
engine: it reads only the HDF5 files.
"""

import argparse
import sys

import h5py
import numpy as np

STEPS = [10, 20, 30, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600]
LOSS_STEPS = [100, 200, 250, 300, 400, 500, 600]


def series(path, name):
    with h5py.File(path, "r") as f:
        group = f[name]
        return np.asarray(group["step"][()]), np.asarray(group["value"][()])


def at(steps, values, step):
    hit = np.nonzero(steps == step)[0]
    return values[hit[0]] if len(hit) else None


def percent(x):
    return "-" if x is None else f"{100.0 * x:.2f}%"


def mask_rows(runs):
    header = "| run | layer | " + " | ".join(str(s) for s in STEPS) + " |"
    lines = [header, "|" + "---|" * (len(STEPS) + 2)]
    for name, run in runs:
        steps, values = series(f"{run}/run.h5", "series/asa/mask_proportion")
        for layer in range(values.shape[1]):
            cells = [percent(None if (v := at(steps, values, s)) is None else v[layer]) for s in STEPS]
            lines.append(f"| {name} | {layer} | " + " | ".join(cells) + " |")
    return lines


def loss_rows(runs):
    header = "| run | loss | " + " | ".join(str(s) for s in LOSS_STEPS) + " |"
    lines = [header, "|" + "---|" * (len(LOSS_STEPS) + 2)]
    for name, run in runs:
        for scalar, label in (("scalars/train/loss", "MLM (train)"), ("scalars/eval/loss", "validation")):
            steps, values = series(f"{run}/run.h5", scalar)
            cells = ["-" if (v := at(steps, values, s)) is None else f"{v:.3f}" for s in LOSS_STEPS]
            lines.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the run without ASA, same recipe")
    parser.add_argument("runs", nargs="+", help="NAME=RUN_DIR of each ASA run")
    args = parser.parse_args()
    runs = [tuple(r.split("=", 1)) for r in args.runs]
    if any(len(r) != 2 for r in runs):
        sys.exit("asa_mask_table: name each run as NAME=RUN_DIR")
    print("Masking proportion per layer (series/asa/mask_proportion):\n")
    print("\n".join(mask_rows(runs)))
    print("\nMLM and validation loss against the baseline:\n")
    print("\n".join(loss_rows(runs + [("baseline", args.baseline)])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
