#!/usr/bin/env python3
"""Attention rollout written from Abnar & Zuidema (2020), section 3, in numpy, independently
of analysis/attention/attention_rollout.cpp: the raw attention of each layer averaged over
heads, the identity added for the residual connection, each row renormalised, and the
layers multiplied from the bottom up (joint attention of layer i = augmented attention of
layer i times joint attention of layer i - 1).

    rollout_reference.py IN.f32 LAYERS HEADS LENGTH VALID OUT.f64

IN holds float32 [layers, heads, length, length]; OUT receives float64 [layers, valid, valid].
"""
import sys

import numpy as np


def rollout(attention, valid):
    att = attention[:, :, :valid, :valid].astype(np.float64).mean(axis=1)
    aug = att + np.eye(valid)[None, :, :]
    aug = aug / aug.sum(axis=-1, keepdims=True)
    joint = np.zeros_like(aug)
    joint[0] = aug[0]
    for layer in range(1, aug.shape[0]):
        joint[layer] = aug[layer] @ joint[layer - 1]
    return joint


def main():
    src, layers, heads, length, valid, dst = sys.argv[1:7]
    shape = (int(layers), int(heads), int(length), int(length))
    attention = np.fromfile(src, dtype=np.float32).reshape(shape)
    rollout(attention, int(valid)).astype(np.float64).tofile(dst)


if __name__ == "__main__":
    main()
