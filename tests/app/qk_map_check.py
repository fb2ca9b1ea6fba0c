#!/usr/bin/env python3
"""Checks an `attnlab-cli qk-map` file against the query-key map recomputed here from the
checkpoint's tensors in numpy float64 (h5py only; independent of the engine):
  - the layer's input from inspect_views_reference.py's Model (the encoder by the textbook
    formulas), run on each sequence's token ids as the file lists them;
  - q = x W_q^T + b_q and k = x W_k^T + b_k per head (before 1/sqrt(d), as the scores use them);
  - AttentionViz's normalisation as analysis/attention/query_key_map.h states it: with
    u = s^2, the root of h(u) = mean_j ||k_j - mu_k + u mu_q|| - u mean_i ||q_i|| (found here
    by bisection), c = u mu_q - mu_k, q' = s q, k' = (k + c) / s;
  - PCA of the 2n points about their joint centroid with numpy.linalg.eigh.
Coordinates are compared up to each axis's sign (relative to the axis's largest magnitude).
The file must hold whole sequences (a --tokens limit that cuts one leaves later layers
unverifiable). Usage: qk_map_check.py CHECKPOINT QK_MAP.h5. Prints one line per head and
exits 1 on the first mismatch.
"""
import os
import sys
import tomllib

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from inspect_views_reference import Model  # noqa: E402

RTOL = 1e-4


def fail(message):
    print(message)
    sys.exit(1)


def layer_input(model, ids, layer):
    """What layer `layer`'s attention block reads: the embeddings' output or the previous
    layer's output, after the block's LayerNorm in a Pre-LN model."""
    real = np.ones(len(ids), bool)
    if layer == 0:
        x = model.p("token_embedding.weight")[ids]
        if "position_embedding.weight" in model.t:
            x = x + model.p("position_embedding.weight")[: len(ids)]
        x = model.ln(x, "embedding_norm")
    else:
        x = model.run(ids, real)[0][layer - 1]
    return model.ln(x, f"layers.{layer}.attention_norm") if model.pre else x


def sequences_of(f):
    """Token ids per sequence, from the query rows; each sequence must be whole."""
    kind, seq, pos, ids = (f[k][()] for k in ("kind", "sequence", "position", "token_ids"))
    q = kind == 0
    if not (np.array_equal(seq[q], seq[~q]) and np.array_equal(ids[q], ids[~q])):
        fail("queries and keys do not list the same tokens")
    out = []
    for s in np.unique(seq[q]):
        rows = q & (seq == s)
        if not np.array_equal(pos[rows], np.arange(rows.sum())):
            fail(f"sequence {s}: positions are not 0..n-1 in order")
        out.append(ids[rows])
    if f.attrs["tokens"] >= f.attrs["max_tokens"]:
        fail("the --tokens limit was reached: the last sequence may be cut (ask for more)")
    return out


def normalise(q, k):
    mu_q, mu_k = q.mean(0), k.mean(0)
    mean_q = np.linalg.norm(q, axis=1).mean()
    h = lambda u: np.linalg.norm(k - mu_k + u * mu_q, axis=1).mean() - u * mean_q
    lo, hi = 0.0, 1.0
    while h(hi) > 0:
        hi *= 2
        if hi > 1e12:
            fail("no scale equalises the mean norms")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if h(mid) > 0 else (lo, mid)
    u = 0.5 * (lo + hi)
    s = np.sqrt(u)
    return s * q, (k + u * mu_q - mu_k) / s, s


def pca(points, dims):
    centred = points - points.mean(0)
    values, vectors = np.linalg.eigh(centred.T @ centred / len(points))
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    return centred @ vectors[:, :dims], values[:dims].sum() / values.sum()


def check_head(name, group, q, k):
    qn, kn, s = normalise(q, k)
    coords = group["coords"][()]
    ref, explained = pca(np.vstack([qn, kn]), coords.shape[1])
    for axis in range(coords.shape[1]):
        a, r = coords[:, axis], ref[:, axis]
        err = min(np.abs(a - r).max(), np.abs(a + r).max())
        if err > RTOL * np.abs(r).max():
            fail(f"{name} axis {axis}: MISMATCH, max error {err:.3g} of {np.abs(r).max():.3g}")
    if abs(group.attrs["scale"] - s) > RTOL * s:
        fail(f"{name}: scale MISMATCH, {group.attrs['scale']} against {s}")
    if abs(group.attrs["explained"] - explained) > RTOL:
        fail(f"{name}: explained MISMATCH, {group.attrs['explained']} against {explained}")
    print(f"{name}: ok, scale {s:.6g}, explained {explained:.4f}")


def main(checkpoint, path):
    with h5py.File(path, "r") as f:
        if f.attrs["format"] != "attnlab-qk-map" or f.attrs["format_version"] != 1:
            fail("not an attnlab-qk-map file of version 1")
        config = tomllib.loads(f["config"][()].decode())
        model = Model(checkpoint, config)
        layer, head = int(f.attrs["layer"]), int(f.attrs["head"])
        sequences = sequences_of(f)
        if len(f["sentences"]) != len(sequences):
            fail("one sentence per sequence expected")
        hidden = config["model"]["hidden_size"]
        d = hidden // model.heads
        qkv = np.vstack([model.linear(layer_input(model, ids, layer),
                                      f"layers.{layer}.attention.qkv") for ids in sequences])
        heads = range(model.heads) if head < 0 else [head]
        for h in heads:
            group = f[f"heads/{layer}_{h}"] if head < 0 else f
            check_head(f"layer {layer} head {h}", group, qkv[:, h * d:(h + 1) * d],
                       qkv[:, hidden + h * d:hidden + (h + 1) * d])
    print(f"ok: {len(sequences)} sequences, {len(qkv)} tokens, {len(heads)} heads")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
