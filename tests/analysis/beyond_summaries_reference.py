#!/usr/bin/env python3
"""Checks the corpus summaries beyond the weights in an analysis.json written by
`attnlab-cli analyze RUN --text FILE` against the model recomputed here from the checkpoint's
tensors in numpy float64 (tests/app/inspect_views_reference.py's Model: textbook formulas,
h5py only, independent of the engine), sentence by sentence:
  - rollout (Abnar & Zuidema 2020; tests/analysis/rollout_reference.py): per layer the mean
    over real query rows of R_ii, sum_j R_ij |i - j| and -sum_j R_ij ln R_ij;
  - norms (Kobayashi et al. 2020): alpha_ij,h f_h(x_j) as explicit vectors; Pearson r (numpy
    corrcoef over every real cell of every sentence) of the weight and the norm per head, the
    mean ||f_h(x_j)||, and per layer r of the heads' mean weight and ||sum_h alpha f||;
  - logit lens: the masking re-implemented from docs/analysis.md (splitmix64 keys, round 15%
    of the non-special tokens, at least one), the masked sentence run again, and per layer the
    accuracy, mean rank, entropy and KL(output || layer) at the masked positions, and the first
    layer reaching half the output's accuracy.
The token ids of each sentence come from `attnlab-cli inspect --view weights` files (one per
line of FILE, in order). Usage:
  beyond_summaries_reference.py CHECKPOINT ANALYSIS_JSON INSPECTION...
Prints one line per check, exits 1 on the first mismatch.
"""
import json
import os
import sys
import tomllib

import h5py
import numpy as np

here = os.path.dirname(__file__)
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "app"))
from rollout_reference import rollout  # noqa: E402
from inspect_views_reference import Model  # noqa: E402

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SPECIAL_IDS = {0, 1, 2, 3, 4}  # <pad> <s> </s> <mask> <unk>: every AttnLab tokenizer's first five
MASK_ID = 3


def splitmix64(x):
    x = (x + GOLDEN) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def mask_positions(ids, seed, sequence):
    inner = splitmix64((seed + GOLDEN * (sequence + 1)) & MASK64)
    keyed = sorted((splitmix64((inner + i) & MASK64), i) for i, t in enumerate(ids)
                   if int(t) not in SPECIAL_IDS)
    if not keyed:
        return []
    count = max(1, (15 * len(keyed) + 50) // 100)
    return sorted(i for _, i in keyed[:count])


def check(name, ours, ref, atol, rtol=0.0):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    err = np.abs(ours - ref)
    print(f"{name}: max abs error {err.max():.3g}")
    if (err > atol + rtol * np.abs(ref)).any():
        print(f"{name}: MISMATCH ours {ours.tolist()} reference {ref.tolist()}")
        sys.exit(1)


class Sums:
    """The reference's own accumulation: plain lists, reduced at the end."""

    def __init__(self, layers, heads):
        self.L, self.H = layers, heads
        self.rollout = np.zeros((3, layers))
        self.rows = 0
        self.weight = [[[] for _ in range(heads)] for _ in range(layers)]
        self.norm = [[[] for _ in range(heads)] for _ in range(layers)]
        self.fnorm = [[[] for _ in range(heads)] for _ in range(layers)]
        self.mean_weight = [[] for _ in range(layers)]
        self.layer_norm = [[] for _ in range(layers)]
        self.lens = {"rank": [], "entropy": [], "kl": []}

    def add_weights(self, alphas, fs, n):
        attention = np.stack(alphas)
        R = rollout(attention, n)
        dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
        for l in range(self.L):
            r = R[l]
            self.rollout[0, l] += np.trace(r)
            self.rollout[1, l] += (r * dist).sum()
            self.rollout[2, l] += -(r * np.log(np.where(r > 0, r, 1.0))).sum()
            vectors = alphas[l][:, :n, :n, None] * fs[l][:, None, :n, :]  # [H, i, j, hidden]
            for h in range(self.H):
                self.weight[l][h].append(alphas[l][h, :n, :n].ravel())
                self.norm[l][h].append(np.linalg.norm(vectors[h], axis=-1).ravel())
                self.fnorm[l][h].append(np.linalg.norm(fs[l][h, :n], axis=-1))
            self.mean_weight[l].append(alphas[l][:, :n, :n].mean(0).ravel())
            self.layer_norm[l].append(np.linalg.norm(vectors.sum(0), axis=-1).ravel())
        self.rows += n

    def add_lens(self, model, ids, real, positions):
        masked = ids.copy()
        masked[positions] = MASK_ID
        outputs, _, _ = model.run(masked, real)
        logps = [model.lens(out)[positions] for out in outputs]
        final = logps[-1]
        own_index = ids[positions]
        for l, logp in enumerate(logps):
            own = logp[np.arange(len(positions)), own_index]
            self.lens["rank"].append((l, (logp > own[:, None]).sum(-1)))
            self.lens["entropy"].append((l, -(np.exp(logp) * logp).sum(-1)))
            self.lens["kl"].append((l, (np.exp(final) * (final - logp)).sum(-1)))

    def lens_rows(self, key):
        return [np.concatenate([v for l, v in self.lens[key] if l == layer]) for layer in range(self.L)]


def check_rollout(report, sums):
    per_layer = report["rollout"]["per_layer"]
    assert report["rollout"]["rows"] == sums.rows, (report["rollout"]["rows"], sums.rows)
    for k, key in enumerate(("diagonal", "spread", "entropy")):
        check(f"rollout {key}", [e[key] for e in per_layer], sums.rollout[k] / sums.rows, 1e-6, 1e-5)


def check_norms(report, sums):
    L, H = sums.L, sums.H
    corr = lambda a, b: np.corrcoef(np.concatenate(a), np.concatenate(b))[0, 1]
    heads = report["norms"]["per_head"]
    check("norms weight-norm r per head", [e["weight_norm_correlation"] for e in heads],
          [corr(sums.weight[l][h], sums.norm[l][h]) for l in range(L) for h in range(H)], 1e-4)
    check("norms mean ||f||", [e["mean_value_norm"] for e in heads],
          [np.concatenate(sums.fnorm[l][h]).mean() for l in range(L) for h in range(H)], 1e-4, 1e-4)
    check("norms layer r", [e["weight_norm_correlation"] for e in report["norms"]["per_layer"]],
          [corr(sums.mean_weight[l], sums.layer_norm[l]) for l in range(L)], 1e-4)


def check_lens(report, sums):
    lens = report["lens"]
    rows = lens["rows"]
    ranks = sums.lens_rows("rank")
    assert lens["positions"] == len(ranks[0]), (lens["positions"], len(ranks[0]))
    tolerance = 1.0 / len(ranks[0]) + 1e-12  # one near-tie may flip a rank
    accuracy = [np.mean(r == 0) for r in ranks]
    check("lens accuracy", [r["accuracy"] for r in rows], accuracy, tolerance)
    check("lens mean rank", [r["mean_rank"] for r in rows], [r.mean() for r in ranks], tolerance)
    check("lens entropy", [r["mean_entropy"] for r in rows],
          [e.mean() for e in sums.lens_rows("entropy")], 1e-4, 1e-4)
    check("lens KL to output", [r["mean_kl_to_output"] for r in rows],
          [k.mean() for k in sums.lens_rows("kl")], 1e-4, 1e-4)
    half = next((i for i, a in enumerate(accuracy) if accuracy[-1] > 0 and a >= 0.5 * accuracy[-1]),
                None)
    assert lens["half_accuracy_row"] == half, (lens["half_accuracy_row"], half)
    print(f"lens half-accuracy row: {half}")


def main(checkpoint, analysis, inspections):
    with open(analysis) as f:
        report = json.load(f)
    beyond = report["beyond_weights"]
    config = None
    sums = None
    for sequence, path in enumerate(inspections):
        with h5py.File(path, "r") as f:
            config = config or tomllib.loads(f["config"][()].decode())
            ids = f["token_ids"][()].astype(np.int64)
            n = int(f.attrs["real_tokens"])
        if sums is None:
            model = Model(checkpoint, config)
            sums = Sums(model.layers, model.heads)
        real = np.arange(len(ids)) < n
        _, alphas, fs = model.run(ids, real)
        sums.add_weights(alphas, fs, n)
        positions = mask_positions(ids[:n], config["run"]["seed"], sequence)
        if positions:
            sums.add_lens(model, ids, real, positions)
    assert beyond["lens"]["masking"]["seed"] == config["run"]["seed"]
    check_rollout(beyond, sums)
    check_norms(beyond, sums)
    check_lens(beyond, sums)
    print(f"ok: {len(inspections)} sequences, {sums.rows} rows, "
          f"{beyond['lens']['positions']} masked positions")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
