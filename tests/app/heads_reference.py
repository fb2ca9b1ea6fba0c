#!/usr/bin/env python3
"""Checks the heads' analysis in an analysis.json written by
`attnlab-cli analyze RUN --text FILE --heads` (Michel et al. 2019, "Are Sixteen Heads Really
Better than One?", section 4) against the model recomputed here from the checkpoint's tensors in
numpy float64 (tests/app/inspect_views_reference.py's Model: textbook formulas, h5py only,
independent of the engine), with a gate xi_(l,h) on each head's context vector (its term of the
output projection; Model's own alphas and values, recombined here), sentence by sentence:
  - the masked positions: the logit lens's rule (tests/analysis/beyond_summaries_reference.py's
    splitmix64 keys, 15% of the real non-special tokens, at least one), replaced by <mask>;
  - full: the MLM cross-entropy (nats) summed over every masked position / their count, and
    the share of masked positions whose argmax is the token;
  - importance raw [l][h]: the mean over sequences of |d sequence loss / d xi_(l,h)| at xi = 1,
    by central finite differences in float64 (not the engine's autograd); normalised: raw over
    the L2 norm of its layer's row;
  - ablation: loss and accuracy with one gate 0, loss_delta against full;
  - pruning: the masked counts of the points (round(i * 0.1 * L * H) up to L * (H - 1)), the
    importance order (ascending normalised importance, ties to the lower index, never a
    layer's last head), the random orders' validity (distinct heads, L * (H - 1) of them, never
    a layer's last head), and every point's loss and accuracy with its first k heads gated 0.
Accuracies may differ by the positions whose top two log-probabilities are within 1e-4 (a
float32 near tie may flip its argmax). The token ids of each sentence come from
`attnlab-cli inspect` files (one per line of FILE, in order). Usage:
  heads_reference.py CHECKPOINT ANALYSIS_JSON INSPECTION...
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
sys.path.insert(0, os.path.join(here, "..", "analysis"))
from inspect_views_reference import Model  # noqa: E402
from beyond_summaries_reference import MASK_ID, mask_positions  # noqa: E402

EPS = 1e-5  # the finite differences' step around xi = 1
NEAR_TIE = 1e-4  # top-two log-probability gap under which an argmax may flip in float32
LOSS_RTOL, LOSS_ATOL = 1e-5, 1e-6  # float32 sums: about 1e-7 relative seen
IMPORTANCE_RTOL, IMPORTANCE_ATOL = 1e-3, 1e-7  # float32 gradients: about 1e-6 seen
PRUNING_STEP = 0.1  # analyze's default


class GatedModel(Model):
    """Model with a gate per (layer, head) on the head's context vector, before W_O."""

    def __init__(self, checkpoint, config):
        super().__init__(checkpoint, config)
        self.gates = np.ones((self.layers, self.heads))

    def attention(self, x, layer, real):
        _, alphas, fs = super().attention(x, layer, real)
        bias = self.p(f"layers.{layer}.attention.output.bias")
        # sum_h xi_h (alpha_h V_h) W_O,h = sum_h xi_h alpha_h f_h
        out = np.einsum("h,hij,hjd->id", self.gates[layer], alphas, fs) + bias
        return out, alphas, fs


class Sequence:
    def __init__(self, ids, n, positions):
        self.masked = ids.copy()
        self.masked[positions] = MASK_ID
        self.real = np.arange(len(ids)) < n
        self.positions = np.asarray(positions, np.int64)
        self.targets = ids[positions]


class Reference:
    def __init__(self, model, sequences):
        self.model = model
        self.sequences = sequences  # only those with >= 1 masked position
        self.count = sum(len(s.positions) for s in sequences)
        self.cache = {}

    def nll(self, seq, gates):
        """-log p(target) at the masked positions, and whether each is a near tie / correct."""
        self.model.gates = gates
        outputs, _, _ = self.model.run(seq.masked, seq.real)
        logp = self.model.lens(outputs[-1][seq.positions])
        nll = -logp[np.arange(len(seq.positions)), seq.targets]
        best = np.sort(logp, -1)
        tie = best[:, -1] - best[:, -2] < NEAR_TIE
        return nll, logp.argmax(-1) == seq.targets, tie

    def score(self, gates):
        """(loss, accuracy, near ties) of the whole set with `gates` [L, H]."""
        key = gates.tobytes()
        if key not in self.cache:
            loss, correct, ties = 0.0, 0, 0
            for seq in self.sequences:
                nll, right, tie = self.nll(seq, gates)
                loss += nll.sum()
                correct += int(right.sum())
                ties += int(tie.sum())
            self.cache[key] = (loss / self.count, correct / self.count, ties)
        return self.cache[key]

    def sequence_loss(self, seq, gates):
        return self.nll(seq, gates)[0].mean()

    def importance(self):
        L, H = self.model.layers, self.model.heads
        total = np.zeros((L, H))
        for seq in self.sequences:
            for l in range(L):
                for h in range(H):
                    up, down = np.ones((L, H)), np.ones((L, H))
                    up[l, h] += EPS
                    down[l, h] -= EPS
                    d = (self.sequence_loss(seq, up) - self.sequence_loss(seq, down)) / (2 * EPS)
                    total[l, h] += abs(d)
        return total / len(self.sequences)


def check(name, ours, ref, atol, rtol=0.0):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    err = np.abs(ours - ref)
    relative = err / np.maximum(np.abs(ref), 1e-300)
    print(f"{name}: max abs error {err.max():.3g}, max relative error {relative.max():.3g}")
    if (err > atol + rtol * np.abs(ref)).any():
        print(f"{name}: MISMATCH ours {ours.tolist()} reference {ref.tolist()}")
        sys.exit(1)


def fail(name, message):
    print(f"{name}: MISMATCH {message}")
    sys.exit(1)


def gates_without(heads, layers, per_layer):
    gates = np.ones(layers * per_layer)
    gates[list(heads)] = 0.0
    return gates.reshape(layers, per_layer)


def check_scores(name, ours, ref, count):
    """ours: [(loss, accuracy)], ref: [(loss, accuracy, near ties)] over `count` positions."""
    check(f"{name} loss", [o[0] for o in ours], [r[0] for r in ref], LOSS_ATOL, LOSS_RTOL)
    err = [abs(o[1] - r[1]) for o, r in zip(ours, ref)]
    print(f"{name} accuracy: max abs error {max(err):.3g} "
          f"(near ties allowed: {max(r[2] for r in ref)} of {count})")
    for i, (o, r) in enumerate(zip(ours, ref)):
        if abs(o[1] - r[1]) > r[2] / count + 1e-12:
            fail(f"{name} accuracy", f"entry {i}: ours {o[1]} reference {r[1]}")


def pruning_order(scores, layers, heads):
    """The rule: ascending score (stable: ties to the lower index), never a layer's last head."""
    left = [heads] * layers
    order = []
    for k in sorted(range(layers * heads), key=lambda k: (scores[k], k)):
        if left[k // heads] == 1:
            continue
        left[k // heads] -= 1
        order.append(k)
    return order


def pruning_points(layers, heads, step):
    total, most = layers * heads, layers * (heads - 1)
    points, i = [], 0
    while True:
        k = int(np.floor(i * step * total + 0.5))  # std::lround of a non-negative value
        if k > most:
            break
        if not points or k > points[-1]:
            points.append(k)
        i += 1
    if points[-1] < most:
        points.append(most)
    return points


def check_order_valid(name, heads, layers, per_layer):
    if len(heads) != layers * (per_layer - 1):
        fail(name, f"{len(heads)} heads, expected {layers * (per_layer - 1)}")
    if len(set(heads)) != len(heads) or not all(0 <= k < layers * per_layer for k in heads):
        fail(name, f"not distinct heads in range: {heads}")
    left = [per_layer] * layers
    for k in heads:
        left[k // per_layer] -= 1
        if left[k // per_layer] < 1:
            fail(name, f"head {k} leaves layer {k // per_layer} without an unmasked head: {heads}")
    print(f"{name}: valid ({heads})")


def heads_of(doc):
    """The heads' analysis object of analysis.json ("head_analysis"): the top-level object that
    holds "importance" and "pruning", whatever its key ("heads" is the number of heads)."""
    found = [v for v in doc.values()
             if isinstance(v, dict) and "importance" in v and "pruning" in v]
    if len(found) != 1:
        fail("heads", f"{len(found)} heads analyses in the report")
    return found[0]


def main(checkpoint, analysis, inspections):
    with open(analysis) as f:
        report = heads_of(json.load(f))
    config, model, sequences = None, None, []
    for sequence, path in enumerate(inspections):
        with h5py.File(path, "r") as f:
            config = config or tomllib.loads(f["config"][()].decode())
            ids = f["token_ids"][()].astype(np.int64)
            n = int(f.attrs["real_tokens"])
        model = model or GatedModel(checkpoint, config)
        positions = mask_positions(ids[:n], config["run"]["seed"], sequence)
        if positions:
            sequences.append(Sequence(ids, n, positions))
    L, H = model.layers, model.heads
    ref_model = Reference(model, sequences)

    assert report["masking"]["seed"] == config["run"]["seed"], report["masking"]
    if report["sequences"] != len(sequences) or report["positions"] != ref_model.count:
        fail("counts", f"ours {report['sequences']} sequences, {report['positions']} positions; "
                       f"reference {len(sequences)}, {ref_model.count}")
    print(f"counts: {len(sequences)} sequences, {ref_model.count} masked positions")

    ones = np.ones((L, H))
    full = ref_model.score(ones)
    check_scores("full", [(report["full"]["loss"], report["full"]["accuracy"])], [full],
                 ref_model.count)

    raw = ref_model.importance()
    check("importance raw", report["importance"]["raw"], raw, IMPORTANCE_ATOL, IMPORTANCE_RTOL)
    normalised = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    check("importance normalised", report["importance"]["normalised"], normalised,
          IMPORTANCE_ATOL, IMPORTANCE_RTOL)
    ours_raw = np.asarray(report["importance"]["raw"])
    check("importance normalised = raw / its layer's L2 norm", report["importance"]["normalised"],
          ours_raw / np.linalg.norm(ours_raw, axis=1, keepdims=True), 1e-12, 1e-12)

    if "ablation" in report:
        ablation = report["ablation"]
        every = [(l, h) for l in range(L) for h in range(H)]
        if [(a["layer"], a["head"]) for a in ablation] != every:
            fail("ablation", "entries not in (layer, head) order")
        ref = [ref_model.score(gates_without([k], L, H)) for k in range(L * H)]
        check_scores("ablation", [(a["loss"], a["accuracy"]) for a in ablation], ref,
                     ref_model.count)
        check("ablation loss_delta", [a["loss_delta"] for a in ablation],
              [r[0] - full[0] for r in ref], 2 * (LOSS_ATOL + LOSS_RTOL * full[0]))
        check("ablation loss_delta = loss - full", [a["loss_delta"] for a in ablation],
              [a["loss"] - report["full"]["loss"] for a in ablation], 1e-12)
    else:
        print("ablation: not in the report")

    points = pruning_points(L, H, PRUNING_STEP)
    ours_normalised = [v for row in report["importance"]["normalised"] for v in row]
    curves = report["pruning"]
    if not curves or curves[0]["order"] != "importance":
        fail("pruning", "the first curve is not the importance order")
    for c, curve in enumerate(curves):
        name = f"pruning {curve['order']}"
        if curve["order"] == "random":
            name += f" seed {curve['seed']}"
        heads = curve["heads"]
        check_order_valid(f"{name} order", heads, L, H)
        if curve["order"] == "importance":
            expected = pruning_order(ours_normalised, L, H)
            if heads != expected:
                fail(f"{name} order",
                     f"ours {heads}, the rule on the normalised importance {expected}")
            print(f"{name} order: ascending normalised importance")
        elif curve["order"] != "random" or c == 0:
            fail(name, f"unexpected order {curve['order']}")
        masked = [p["masked"] for p in curve["points"]]
        if masked != points:
            fail(f"{name} points", f"masked {masked}, expected {points}")
        if any(p["share"] != p["masked"] / (L * H) for p in curve["points"]):
            fail(f"{name} points", "share is not masked / (layers * heads)")
        if (curve["points"][0]["loss"], curve["points"][0]["accuracy"]) != \
                (report["full"]["loss"], report["full"]["accuracy"]):
            fail(f"{name} points", "the point with no head masked is not the full model")
        ref = [ref_model.score(gates_without(heads[:k], L, H)) for k in masked]
        check_scores(name, [(p["loss"], p["accuracy"]) for p in curve["points"]], ref,
                     ref_model.count)
    print(f"ok: {len(inspections)} sequences, {ref_model.count} masked positions, "
          f"{L} layers x {H} heads, "
          f"{len(curves)} pruning curves, {len(ref_model.cache)} gate settings")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
