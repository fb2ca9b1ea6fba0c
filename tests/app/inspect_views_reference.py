#!/usr/bin/env python3
"""Checks an `attnlab-cli inspect --view weights,rollout,norms,lens` file against the model
recomputed here from the checkpoint's tensors in numpy float64 (h5py only; independent of the
engine): the encoder by the textbook formulas (embeddings, LayerNorm, per-head softmax
attention, erf GELU feed-forward; Post-LN or Pre-LN), then
  - weights: every layer's softmax attention;
  - norms (Kobayashi et al. 2020): f_h(x_j) = (x_j W_V,h + b_V,h) W_O,h, ||f_h(x_j)||,
    ||alpha_ij,h f_h(x_j)|| and ||sum_h alpha_ij,h f_h(x_j)|| as explicit vector sums;
  - rollout (Abnar & Zuidema 2020): tests/analysis/rollout_reference.py on the file's weights;
  - logit lens: the MLM head (dense, GELU, LayerNorm, tied embeddings + bias; Pre-LN: the final
    LayerNorm first) on every layer's output: top-1 token, the own token's rank and probability.
Only plain models (no attention variants). Usage: inspect_views_reference.py CHECKPOINT INSPECTION
Prints one line per check and exits 1 on the first mismatch.
"""
import os
import sys
import tomllib

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "analysis"))
from rollout_reference import rollout  # noqa: E402


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    from math import erf, sqrt
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / sqrt(2.0)))


class Model:
    def __init__(self, checkpoint, config):
        with h5py.File(checkpoint, "r") as f:
            g = f["tensors/model"]
            self.t = {k: g[k][()].astype(np.float64) for k in g.keys()}
        m = config["model"]
        self.layers, self.heads, self.eps = m["layers"], m["heads"], m["layer_norm_eps"]
        self.pre = m["norm"] == "pre"
        attention = config["attention"]
        assert attention["residual"] == "none" and not attention["temperature"], "plain models only"

    def p(self, name):
        return self.t[name]

    def linear(self, x, name):
        return x @ self.p(name + ".weight").T + self.p(name + ".bias")

    def ln(self, x, name):
        return layer_norm(x, self.p(name + ".weight"), self.p(name + ".bias"), self.eps)

    def attention(self, x, layer, real):
        """Output, alpha [H, T, T] and f [H, T, hidden] of one layer's attention block."""
        name = f"layers.{layer}.attention"
        hidden = x.shape[-1]
        d = hidden // self.heads
        qkv = self.linear(x, name + ".qkv")
        w_o = self.p(name + ".output.weight")
        alphas, fs, out = [], [], np.zeros_like(x)
        for h in range(self.heads):
            q = qkv[:, h * d:(h + 1) * d]
            k = qkv[:, hidden + h * d:hidden + (h + 1) * d]
            v = qkv[:, 2 * hidden + h * d:2 * hidden + (h + 1) * d]
            s = q @ k.T / np.sqrt(d) + np.where(real, 0.0, -10000.0)[None, :]
            e = np.exp(s - s.max(-1, keepdims=True))
            alpha = e / e.sum(-1, keepdims=True)
            f = v @ w_o[:, h * d:(h + 1) * d].T
            alphas.append(alpha)
            fs.append(f)
            out += alpha @ f
        return out + self.p(name + ".output.bias"), np.stack(alphas), np.stack(fs)

    def run(self, ids, real):
        x = self.p("token_embedding.weight")[ids]
        if "position_embedding.weight" in self.t:
            x = x + self.p("position_embedding.weight")[: len(ids)]
        x = self.ln(x, "embedding_norm")
        outputs, alphas, fs = [], [], []
        for l in range(self.layers):
            pre = f"layers.{l}."
            a_in = self.ln(x, pre + "attention_norm") if self.pre else x
            a, alpha, f = self.attention(a_in, l, real)
            ffn = lambda y: self.linear(gelu(self.linear(y, pre + "ffn_in")), pre + "ffn_out")
            if self.pre:
                h = x + a
                x = h + ffn(self.ln(h, pre + "ffn_norm"))
            else:
                h = self.ln(x + a, pre + "attention_norm")
                x = self.ln(h + ffn(h), pre + "ffn_norm")
            outputs.append(x)
            alphas.append(alpha)
            fs.append(f)
        return outputs, alphas, fs

    def lens(self, layer_output):
        x = self.ln(layer_output, "final_norm") if self.pre else layer_output
        h = self.ln(gelu(self.linear(x, "mlm_transform")), "mlm_norm")
        logits = h @ self.p("token_embedding.weight").T + self.p("mlm_bias")
        logits -= logits.max(-1, keepdims=True)
        return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


def check(name, ours, ref, atol, rtol=0.0):
    err = np.abs(np.asarray(ours, np.float64) - ref)
    bad = err > atol + rtol * np.abs(ref)
    print(f"{name}: max abs error {err.max():.3g}")
    if bad.any():
        print(f"{name}: MISMATCH at {np.argwhere(bad)[:5].tolist()}")
        sys.exit(1)


def main(checkpoint, inspection):
    with h5py.File(inspection, "r") as f:
        config = tomllib.loads(f["config"][()].decode())
        ids = f["token_ids"][()]
        own = f["original_ids"][()] if "original_ids" in f else ids
        n = int(f.attrs["real_tokens"])
        probabilities = f["probabilities"][()]
        rollout_file = f["rollout"][()]
        norms = {k: f["norms/" + k][()] for k in ("value", "head", "layer")}
        lens = {k: f["lens/" + k][()] for k in ("top_ids", "top_probabilities", "target_rank",
                                                 "target_probability")}
    model = Model(checkpoint, config)
    real = np.arange(len(ids)) < n
    outputs, alphas, fs = model.run(ids, real)
    check("weights", probabilities, np.stack(alphas), 2e-5)
    check("norms/value", norms["value"], np.stack([np.linalg.norm(f, axis=-1) for f in fs]), 1e-4, 1e-4)
    head = np.stack([np.linalg.norm(a[:, :, :, None] * f[:, None, :, :], axis=-1)
                     for a, f in zip(alphas, fs)])
    check("norms/head", norms["head"], head, 1e-4, 1e-4)
    layer = np.stack([np.linalg.norm((a[:, :, :, None] * f[:, None, :, :]).sum(0), axis=-1)
                      for a, f in zip(alphas, fs)])
    check("norms/layer", norms["layer"], layer, 1e-4, 1e-4)
    check("rollout", rollout_file, rollout(probabilities, n), 1e-10)
    for l, out in enumerate(outputs):
        logp = model.lens(out)
        best = np.sort(logp, -1)
        clear = best[:, -1] - best[:, -2] > 1e-4  # positions without a near tie for the top
        assert (lens["top_ids"][l, clear, 0] == logp.argmax(-1)[clear]).all(), f"lens top-1, layer {l}"
        own_logp = logp[np.arange(len(ids)), own]
        check(f"lens/target_probability layer {l}", lens["target_probability"][l], np.exp(own_logp), 1e-5)
        ranks = (logp > own_logp[:, None] + 1e-9).sum(-1)
        loose = (logp > own_logp[:, None] - 1e-9).sum(-1)
        assert ((lens["target_rank"][l] >= ranks) & (lens["target_rank"][l] <= loose)).all(), \
            f"lens rank, layer {l}: {lens['target_rank'][l]} vs {ranks}"
    print(f"ok: {model.layers} layers, {len(ids)} tokens, {n} real")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
