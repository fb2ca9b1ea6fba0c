#!/usr/bin/env python3
"""Checks attention health (issue 41; core/health/attention_health.h) against numpy float64,
independently of the engine (h5py and numpy only):

  health_check.py log RUN_H5 CHECKPOINTS_DIR
      The run log's health/* series. At every step that has both, the attention quantities
      (class_mass, sink rates, top_key_mass, entropy_mean/min, collapsed_share, logit_max) are
      recomputed from the attention snapshots of the same probe batch; the snapshots are
      float16 (docs/run-log.md), so these compare within float16's resolution (1e-3
      relative). At every step that also has a checkpoint, everything (the residual-stream
      quantities too) is recomputed from the encoder run here in float64 on the probe batch
      (inspect_views_reference.py's Model), and spectral_norm from numpy's SVD of
      W_Q,h^T W_K,h / sqrt(d), within 1e-5 relative (1e-6 absolute near zero).
  health_check.py text HEALTH_JSON CAPTURE.h5...
      `attnlab-cli health --text` (health.json) against the same quantities recomputed from
      `attnlab-cli inspect --capture 'blocks.*.attn.pattern,blocks.*.attn.scores,
      blocks.*.resid_post'` files, one per line of the text in order, and spectral_norm from
      the report's checkpoint (not for a model folder), within 1e-5 relative.
  health_check.py rotary HEALTH_JSON
      A run with rotary positions: spectral_norm_rotary (the largest spectral norm over the
      offsets each layer reaches, and where) against numpy's SVD of A_q^T R(r) A_k / sqrt(d)
      for every offset, R(r) written out from RoPE's formula, within 1e-5 relative.
  health_check.py perturb-json HEALTH_JSON KEY / perturb-h5 RUN_H5 SERIES
      Negative controls: scale the first value of KEY (the last row of health/SERIES) by 1.001.

Token classes (first position, <s>/[CLS], </s>/[SEP], punctuation, other) come from the pieces
stored in the files, by core/tokenizer/piece_roles.h's rules. Prints one line per check; on a
mismatch prints "<quantity>...: MISMATCH" and exits 1.
"""
import json
import os
import string
import sys
import tomllib

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from inspect_views_reference import Model  # noqa: E402

CLASSES = ["first", "cls", "sep", "punctuation", "other"]
EXACT = (1e-5, 1e-6)  # relative, absolute
HALF = (1e-3, 1e-3)   # float16 snapshots


# ---- token classes (core/tokenizer/piece_roles.h) ----

def is_punctuation(piece):
    for marker in ("\u2581", "\u0120", "##"):
        if piece.startswith(marker):
            piece = piece[len(marker):]
            break
    if piece in ("", "<s>", "[CLS]", "</s>", "[SEP]", "<pad>", "[PAD]"):
        return False
    return all(c in string.punctuation for c in piece)


def piece_class(piece):
    if piece in ("<s>", "[CLS]"):
        return 1
    if piece in ("</s>", "[SEP]"):
        return 2
    return 3 if is_punctuation(piece) else 4


# ---- the health of sequences, accumulated as the engine does ----

class Health:
    def __init__(self, layers, heads, epsilon, nats):
        L, H, C = layers, heads, len(CLASSES)
        self.L, self.H, self.eps, self.nats = L, H, epsilon, nats
        self.class_sum, self.class_count = np.zeros((L, H, C)), np.zeros(C)
        self.top_sum, self.votes = np.zeros((L, H)), np.zeros((L, H, C))
        self.ent_sum, self.ent_min = np.zeros((L, H)), np.full((L, H), np.inf)
        self.collapsed, self.logit_max = np.zeros((L, H)), np.full((L, H), -np.inf)
        self.near_threshold = np.zeros((L, H))  # rows within the float16 band of `nats`
        self.rows = self.sequences = 0
        self.entries = [[] for _ in range(L)]  # (|h|, sequence, position, dimension)
        self.magnitudes = [[] for _ in range(L)]
        self.rank_sum, self.cos_sum = np.zeros(L), np.zeros(L)

    def add(self, pieces, real, patterns, scores=None, residual=None, band=0.0):
        """One sequence: pieces [T], real [T] bool, patterns [L][H, T, T], scores and
        residual ([L][T, D]) optional."""
        T = len(pieces)
        classes = np.array([piece_class(p) for p in pieces])
        first = (np.arange(T) == 0) & real
        masks = [first] + [(classes == c) & real for c in (1, 2, 3)]
        masks.append(real & ~first & ~masks[1] & ~masks[2] & ~masks[3])
        masks = np.array(masks, np.float64)  # [C, T]
        counts = masks.sum(1)
        holder = classes.copy()
        holder[0] = 0
        nq = real.sum()
        for l in range(self.L):
            a = patterns[l].astype(np.float64) * real[None, None, :]
            alpha = (a * real[None, :, None]).sum(1) / max(nq, 1)  # [H, T]
            for c in range(len(CLASSES)):
                if counts[c] > 0:
                    self.class_sum[l, :, c] += (alpha * masks[c]).sum(-1) / counts[c]
            masked = np.where(real[None, :], alpha, -1.0)
            self.top_sum[l] += masked.max(-1)
            for h, k in enumerate(masked.argmax(-1)):
                self.votes[l, h, holder[k]] += 1
            with np.errstate(divide="ignore", invalid="ignore"):
                ent = -np.where(a > 0, a * np.log(np.where(a > 0, a, 1.0)), 0.0).sum(-1)  # [H, T]
            ent = ent[:, real]
            self.ent_sum[l] += ent.sum(-1)
            self.ent_min[l] = np.minimum(self.ent_min[l], ent.min(-1))
            self.collapsed[l] += (ent < self.nats).sum(-1)
            self.near_threshold[l] += (np.abs(ent - self.nats) <= band).sum(-1)
            if scores is not None:
                s = scores[l].astype(np.float64)[:, real][:, :, real]
                self.logit_max[l] = np.maximum(self.logit_max[l], s.max((1, 2)))
            if residual is not None:
                self.add_residual(l, residual[l], real)
        self.class_count += counts > 0
        self.rows += nq
        self.sequences += 1

    def add_residual(self, l, x, real):
        rows = np.abs(x[real].astype(np.float32))  # the engine keeps float32 |h|
        positions = np.nonzero(real)[0]
        self.magnitudes[l].append(rows.ravel())
        flat = rows.astype(np.float64).ravel()
        for cell in np.argsort(-flat, kind="stable")[:3]:
            self.entries[l].append((flat[cell], self.sequences, positions[cell // rows.shape[1]],
                                    cell % rows.shape[1]))
        xd = x[real].astype(np.float64)
        n = xd.shape[0]
        if n >= 2:
            self.rank_sum[l] += np.linalg.norm(xd - xd.mean(0)) / np.linalg.norm(xd)
            u = xd / np.linalg.norm(xd, axis=1, keepdims=True)
            self.cos_sum[l] += ((u.sum(0) ** 2).sum() - n) / (n * (n - 1))

    def result(self):
        r = {}
        count = self.class_count[None, None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            r["class_mass"] = np.where(count > 0, self.class_sum / np.maximum(count, 1), np.nan)
        sink = np.nan_to_num(r["class_mass"], nan=-1.0) > self.eps
        r["sink_rate_by_layer"] = sink.mean(1)
        r["sink_rate"] = sink.mean((0, 1))
        r["top_key_mass"] = self.top_sum / self.sequences
        r["entropy_mean"] = self.ent_sum / self.rows
        r["entropy_min"] = self.ent_min
        r["collapsed_share"] = self.collapsed / self.rows
        r["logit_max"] = self.logit_max
        if self.magnitudes[0]:
            r["massive"] = [sorted(e, key=lambda t: -t[0])[:3] for e in self.entries]
            medians = []
            for m in self.magnitudes:
                v = np.sort(np.concatenate(m))
                medians.append(float(v[(len(v) - 1) // 2]))  # the lower median, as torch's
            r["median_abs"] = np.array(medians)
            r["massive_ratio"] = np.array([e[0][0] for e in r["massive"]]) / r["median_abs"]
            r["rank_residual"] = self.rank_sum / self.sequences
            r["mean_cosine"] = self.cos_sum / self.sequences
        return r


# ---- comparisons ----

def check(name, ours, ref, tol):
    rtol, atol = tol
    ours = np.asarray(ours, np.float64)
    ref = np.asarray(ref, np.float64)
    if ours.shape != ref.shape:
        print(f"{name}: MISMATCH shape {ours.shape} vs {ref.shape}")
        sys.exit(1)
    both_nan = np.isnan(ours) & np.isnan(ref)
    err = np.where(both_nan, 0.0, np.abs(ours - ref))
    bad = ~(err <= atol + rtol * np.abs(np.nan_to_num(ref)))
    print(f"{name}: max abs error {np.nanmax(err) if err.size else 0:.3g}")
    if bad.any():
        where = np.argwhere(bad)[:5].tolist()
        print(f"{name}: MISMATCH at {where}: {ours[bad][:5]} vs {ref[bad][:5]}")
        sys.exit(1)


def check_votes(name, classes, votes):
    """The engine's class of the top key may be any of those with the most votes."""
    for idx in np.ndindex(classes.shape):
        best = votes[idx]
        if best[int(classes[idx])] != best.max():
            print(f"{name}: MISMATCH at {list(idx)}: {CLASSES[int(classes[idx])]} has "
                  f"{best[int(classes[idx])]} votes, the most are {best.max()}")
            sys.exit(1)
    print(f"{name}: ok")


def check_collapsed(name, ours, acc):
    lo = (acc.collapsed - acc.near_threshold) / acc.rows
    hi = (acc.collapsed + acc.near_threshold) / acc.rows
    ours = np.asarray(ours, np.float64)
    bad = (ours < lo - 1e-7) | (ours > hi + 1e-7)
    print(f"{name}: {int(acc.near_threshold.sum())} rows near the threshold")
    if bad.any():
        print(f"{name}: MISMATCH at {np.argwhere(bad)[:5].tolist()}: {ours[bad]} vs "
              f"[{lo[bad]}, {hi[bad]}]")
        sys.exit(1)


def head_rows(f, layer, heads):
    """Each head's rows of W_Q and W_K [d, D] of a checkpoint's layer, and d."""
    w = f[f"tensors/model/layers.{layer}.attention.qkv.weight"][()].astype(np.float64)
    hidden = w.shape[1]
    d = hidden // heads
    return [(w[h * d:(h + 1) * d], w[hidden + h * d:hidden + (h + 1) * d])
            for h in range(heads)], d


def spectral_norms(checkpoint, layers, heads):
    with h5py.File(checkpoint, "r") as f:
        out = np.zeros((layers, heads))
        for l in range(layers):
            rows, d = head_rows(f, l, heads)
            for h, (q, k) in enumerate(rows):
                out[l, h] = np.linalg.svd(q.T @ k, compute_uv=False)[0] / np.sqrt(d)
    return out


def encode(model, ids, real):
    """patterns [L][H, T, T], unmasked scores [L][H, T, T], outputs [L][T, D] of one sequence,
    by the textbook formulas (the Model's, with the scores kept before the padding mask)."""
    patterns, scores = [], []
    attention = model.attention

    def capture(x, layer, real_):
        name = f"layers.{layer}.attention"
        hidden = x.shape[-1]
        d = hidden // model.heads
        qkv = model.linear(x, name + ".qkv")
        s = np.stack([qkv[:, h * d:(h + 1) * d] @ qkv[:, hidden + h * d:hidden + (h + 1) * d].T
                      for h in range(model.heads)]) / np.sqrt(d)
        out, alpha, f = attention(x, layer, real_)
        patterns.append(alpha)
        scores.append(s)
        return out, alpha, f

    model.attention = capture
    try:
        outputs, _, _ = model.run(ids, real)
    finally:
        model.attention = attention
    return patterns, scores, outputs


# ---- a) the run log ----

def series(f, name):
    g = f["series/" + name]
    n = min(len(g["step"]), len(g["value"]))
    return {int(s): v for s, v in zip(g["step"][:n], g["value"][:n])}


def check_attention(prefix, got, ref, acc, tol):
    for key in ("class_mass", "top_key_mass", "entropy_mean", "entropy_min", "logit_max"):
        check(f"{key} {prefix}", got[key], ref[key], tol)
    check_collapsed(f"collapsed_share {prefix}", got["collapsed_share"], acc)
    # The sink rates from the logged class mass itself: exactly its threshold.
    sink = np.nan_to_num(np.asarray(got["class_mass"], np.float64), nan=-1.0) > acc.eps
    check(f"sink_rate_by_layer {prefix}", got["sink_rate_by_layer"], sink.mean(1), EXACT)
    check(f"sink_rate {prefix}", got["sink_rate"], sink.mean((0, 1)), EXACT)


def check_residual(prefix, got, ref, tokens_of):
    for key in ("median_abs", "massive_ratio", "rank_residual", "mean_cosine"):
        check(f"{key} {prefix}", got[key], ref[key], EXACT)
    values = np.array([[e[0] for e in layer] for layer in ref["massive"]])
    check(f"massive_value {prefix}", got["massive_value"], values, EXACT)
    for key, index in (("massive_token", None), ("massive_dimension", 3)):
        want = np.array([[tokens_of(e) if index is None else e[index] for e in layer]
                         for layer in ref["massive"]])
        if not np.array_equal(np.asarray(got[key]).astype(np.int64), want):
            print(f"{key} {prefix}: MISMATCH {np.asarray(got[key]).tolist()} vs {want.tolist()}")
            sys.exit(1)
        print(f"{key} {prefix}: ok")


def check_log(run_h5, checkpoints):
    with h5py.File(run_h5, "r") as f:
        config = tomllib.loads(f["config"][()].decode())
        ids = f["snapshots/token_ids"][()]
        tokens = list(f["snapshots/tokens"].asstr()[()])
        vocab = list(f["tokenizer/pieces"].asstr()[()])
        names = [k for k in f["series/health"].keys()]
        health = {n: series(f, "health/" + n) for n in names}
        probs = series(f, "snapshots/probabilities")
        scores = series(f, "snapshots/scores")
    B, T = ids.shape
    L, H = config["model"]["layers"], config["model"]["heads"]
    log = config["log"]
    eps, nats = log.get("health_sink_epsilon", 0.3), log.get("health_collapse_nats", 0.5)
    pad = vocab.index("<pad>") if "<pad>" in vocab else vocab.index("[PAD]")
    real = ids != pad
    pieces = [tokens[b * T:(b + 1) * T] for b in range(B)]
    steps = sorted(set(health["entropy_mean"]) & set(probs) & set(scores))
    last = max(health["entropy_mean"])
    assert 0 in steps and last in steps, f"steps with health and snapshots: {steps}"
    for step in steps:
        acc = Health(L, H, eps, nats)
        for b in range(B):
            acc.add(pieces[b], real[b], probs[step][:, b], scores[step][:, b], band=2e-3)
        got = {k: v[step] for k, v in health.items()}
        check_attention(f"step {step} (snapshots)", got, acc.result(), acc, HALF)
    exact = []
    for name in sorted(os.listdir(checkpoints)):
        step = int(name[len("step-"):-len(".h5")]) if name.startswith("step-") else None
        if step is None or step not in health["entropy_mean"]:
            continue
        path = os.path.join(checkpoints, name)
        model = Model(path, config)
        acc = Health(L, H, eps, nats)
        for b in range(B):
            patterns, sc, outputs = encode(model, ids[b], real[b])
            acc.add(pieces[b], real[b], patterns, sc, outputs)
        got = {k: v[step] for k, v in health.items()}
        ref = acc.result()
        prefix = f"step {step} (checkpoint)"
        check_attention(prefix, got, ref, acc, EXACT)
        check(f"top_key_mass {prefix}", got["top_key_mass"], ref["top_key_mass"], EXACT)
        check_votes(f"top_key_class {prefix}", got["top_key_class"], acc.votes)
        check_residual(prefix, got, ref, lambda e: e[1] * T + e[2])
        check(f"spectral_norm {prefix}", got["spectral_norm"], spectral_norms(path, L, H), EXACT)
        exact.append(step)
    assert last in exact, f"no checkpoint at the last step {last}: {exact}"
    print(f"ok: {len(steps)} steps against the snapshots, {len(exact)} against checkpoints "
          f"{exact}")


# ---- b) a health report on a text file ----

def check_text(report_path, captures):
    with open(report_path) as f:
        report = json.load(f)
    L, H = report["layers"], report["heads"]
    settings = report["settings"]
    acc = Health(L, H, settings["sink_epsilon"], settings["collapse_nats"])
    sequences = []
    for path in captures:
        with h5py.File(path, "r") as f:
            tokens = list(f["tokens"].asstr()[()])
            a = {k: f["activations/" + k][()] for k in f["activations"].keys()}
            assert int(f.attrs["real_tokens"]) == len(tokens), path
        real = np.ones(len(tokens), bool)
        get = lambda kind: [a[f"blocks.{l}.{kind}"][0] for l in range(L)]  # noqa: E731
        acc.add(tokens, real, get("attn.pattern"), get("attn.scores"), get("resid_post"))
        sequences.append(tokens)
    ref = acc.result()
    ev = report["evaluation"]
    if ev["sequences"] != len(captures) or ev["rows"] != acc.rows:
        print(f"evaluation: MISMATCH {ev['sequences']} sequences, {ev['rows']} rows vs "
              f"{len(captures)}, {acc.rows}")
        sys.exit(1)
    got = dict(report)
    got["class_mass"] = np.array(report["class_mass"], dtype=np.float64)  # null -> nan
    check_attention("(text)", got, ref, acc, EXACT)
    classes = np.array([[CLASSES.index(c) for c in row] for row in report["top_key_class"]])
    check_votes("top_key_class (text)", classes, acc.votes)
    got["massive_value"] = [[e["value"] for e in layer] for layer in report["massive"]]
    got["massive_token"] = [[e["sequence"] * 100000 + e["position"] for e in layer]
                            for layer in report["massive"]]
    got["massive_dimension"] = [[e["dimension"] for e in layer] for layer in report["massive"]]
    check_residual("(text)", got, ref, lambda e: e[1] * 100000 + e[2])
    for layer in report["massive"]:
        for e in layer:
            if e["token"] != sequences[e["sequence"]][e["position"]]:
                print(f"massive token: MISMATCH {e} vs {sequences[e['sequence']][e['position']]}")
                sys.exit(1)
    checkpoint = report["run"]["checkpoint"]
    if os.path.isdir(checkpoint):  # a Hugging Face folder: its weights are not an HDF5 file
        print("spectral_norm (text): not recomputed for a model folder")
    else:
        norms = spectral_norms(checkpoint, L, H)
        check("spectral_norm (text)", report["spectral_norm"], norms, EXACT)
    print(f"ok: {len(captures)} sequences, {acc.rows} rows, {L} layers x {H} heads")


# ---- c) the spectral norm under rotary positions, largest over the offsets ----

def rotation(d, theta, r):
    """RoPE's turn by offset r: pair (m, m + d/2) by r * theta^(-2m/d), as a dense matrix."""
    R = np.zeros((d, d))
    half = d // 2
    for m in range(half):
        a = r * theta ** (-2.0 * m / d)
        R[m, m], R[m, m + half] = np.cos(a), -np.sin(a)
        R[m + half, m], R[m + half, m + half] = np.sin(a), np.cos(a)
    return R


def check_rotary(report_path):
    """spectral_norm_rotary of a health.json: for each head, the largest sigma of
    A_q^T R(r) A_k / sqrt(d) over |r| <= the layer's reach (the longest sequence - 1, within
    half the window in a windowed layer), at the layer's base, and the r of it."""
    with open(report_path) as f:
        report = json.load(f)
    config = tomllib.loads(report["config"])
    model = config["model"]
    if config.get("attention", {}).get("temperature", False):
        sys.exit("rotary: a run with learned temperatures is not recomputed here")
    L, H = report["layers"], report["heads"]
    longest = report["evaluation"]["longest_sequence"]
    window, every = model.get("attention_window", 0), model.get("global_every", 3)
    got = report["spectral_norm_rotary"]
    norm, offset = np.zeros((L, H)), np.zeros((L, H), dtype=int)
    with h5py.File(report["run"]["checkpoint"], "r") as f:
        for l in range(L):
            windowed = window > 0 and l % every != 0
            reach = min(longest - 1, window // 2) if windowed else longest - 1
            theta = model["rope_theta_local"] if windowed else model["rope_theta"]
            if got["reach"][l] != reach or got["theta"][l] != theta:
                print(f"reach/theta layer {l}: MISMATCH {got['reach'][l]}, {got['theta'][l]} "
                      f"vs {reach}, {theta}")
                sys.exit(1)
            rows, d = head_rows(f, l, H)
            for h, (q, k) in enumerate(rows):
                sig = [np.linalg.svd(q.T @ rotation(d, theta, r) @ k, compute_uv=False)[0]
                       for r in range(-reach, reach + 1)]
                norm[l, h] = max(sig) / np.sqrt(d)
                offset[l, h] = int(np.argmax(sig)) - reach
                r = got["offset"][l][h]
                # Another offset only on a tie: its form must reach the same largest norm.
                if r != offset[l, h] and not (abs(r) <= reach and
                                              abs(sig[r + reach] - max(sig)) <= 1e-9 * max(sig)):
                    print(f"spectral_norm_rotary offset L{l}H{h}: MISMATCH {r} vs {offset[l, h]}")
                    sys.exit(1)
    check("spectral_norm_rotary", got["norm"], norm, EXACT)
    plain = np.array(report["spectral_norm"])
    print(f"ok: rotary spectral norms of {L} layers x {H} heads, offsets up to "
          f"{max(got['reach'])}; largest over offsets / at 0: "
          f"{float(np.max(norm / plain)):.3f}")


# ---- d) negative controls ----

def perturb_json(path, key):
    """KEY may name a member of a member: spectral_norm_rotary.norm."""
    with open(path) as f:
        report = json.load(f)
    v = report
    for part in key.split("."):
        v = v[part]
    while isinstance(v[0], list):
        v = v[0]
    v[0] = v[0] * 1.001 if v[0] else 1e-3
    with open(path, "w") as f:
        json.dump(report, f)


def perturb_h5(path, name):
    with h5py.File(path, "r+") as f:
        d = f[f"series/health/{name}/value"]
        row = d[-1]
        flat = row.reshape(-1)
        flat[0] = flat[0] * 1.001 if flat[0] else 1e-3
        d[-1] = flat.reshape(row.shape)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "log":
        check_log(args[0], args[1])
    elif mode == "text":
        check_text(args[0], args[1:])
    elif mode == "rotary":
        check_rotary(args[0])
    elif mode == "perturb-json":
        perturb_json(args[0], args[1])
    elif mode == "perturb-h5":
        perturb_h5(args[0], args[1])
    else:
        sys.exit(f"unknown mode {mode}")
