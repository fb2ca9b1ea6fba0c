#!/usr/bin/env python3
"""Checks an `attnlab-cli inspect --capture` file (docs/hook-points.md, "Activation files")
against the encoder recomputed here from the checkpoint's tensors in numpy float64 (h5py
only; independent of the engine: inspect_views_reference.py's Model, the textbook formulas):
embed, every layer's attn.pattern (softmax attention) and resid_post, each present in the
file. Also the layout: format attributes, /names in pass order, every name a dataset of
/activations. Usage: activations_check.py CHECKPOINT ACTIVATIONS.h5. Prints one line per
check and exits 1 on the first mismatch.
"""
import os
import sys
import tomllib

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from inspect_views_reference import Model, check  # noqa: E402


def main(checkpoint, path):
    with h5py.File(checkpoint, "r") as f:
        config = tomllib.loads(f["config"][()].decode())
    with h5py.File(path, "r") as f:
        a = f.attrs
        assert a["format"] == "attnlab-activations" and a["format_version"] == 1, dict(a)
        names = [n.decode() for n in f["names"][()]]
        assert sorted(names) == sorted(f["activations"].keys()), (names, list(f["activations"]))
        acts = {n: f["activations/" + n][()] for n in names}
        ids = f["token_ids"][()]
        n = int(a["real_tokens"])
    model = Model(checkpoint, config)
    real = np.arange(len(ids)) < n
    outputs, alphas, _ = model.run(ids, real)
    expected = {}
    x = model.p("token_embedding.weight")[ids]
    if "position_embedding.weight" in model.t:
        x = x + model.p("position_embedding.weight")[: len(ids)]
    expected["embed"] = model.ln(x, "embedding_norm")
    for l in range(model.layers):
        expected[f"blocks.{l}.attn.pattern"] = alphas[l]
        expected[f"blocks.{l}.resid_post"] = outputs[l]
    checked = 0
    for name, ours in acts.items():
        if name in expected:
            check(name, ours[0], expected[name], 2e-5, 1e-4)  # batch axis B = 1
            checked += 1
    print(f"ok: {len(names)} hook points, {checked} recomputed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
