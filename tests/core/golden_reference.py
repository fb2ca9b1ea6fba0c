#!/usr/bin/env python3
"""PyTorch reference of the golden test (tests/core/test_golden_pytorch.cpp).

usage: golden_reference.py ROOT CASE [CASE ...]

For each case, reads ROOT/CASE/input/checkpoints/step-0000000.h5 (an AttnLab checkpoint file:
the resolved config as TOML, the initial parameters under tensors/model/<engine name>, one MLM
batch under tensors/batch/) and writes ROOT/CASE/reference.h5 (the same file layout, so the
C++ test reads it with CheckpointStore::load) with, in float64:

  logits               [N, V] MLM logits at the selected positions (labels != -100, in the
                       order of the flattened [B, T] batch), parameters as loaded
  mlm_loss             mean cross-entropy over the selected positions
  total_loss           the objective: mlm_loss, + alpha(0) * guidance loss when guided, + the
                       adversarial pass's KL terms and mask penalty with ASA
  guidance_loss        the unweighted attention-guidance loss (guided cases only)
  grad/<name>          d total_loss / d parameter, one backward pass, before clipping
  step_total_losses    [10] the objective at steps 0..9 of AdamW training on the batch
  step_mlm_losses      [10] the MLM loss at those steps
  step_grad_norms      [10] the global gradient norm before clipping at those steps
  final/<name>         the parameters after the 10 steps

and the same quantities computed in float32 under torch_float32/<key> (PyTorch's own float32
error, against which the test judges the engine's float32 run where float32 cannot resolve a
quantity to 1e-4).

The model is written here the way a PyTorch user writes a BERT (HuggingFace's module layout:
separate query/key/value Linear layers, Post-LN residual blocks, a tied MLM head) with
torch.nn.functional, and each attention variant from its paper's formula as stated in
docs/variants.md (not from the C++). Only the storage layout of the
engine's parameters is taken from the engine (its names, its fused [3H, H] qkv matrix, the
index of the relative-position vector), in load_engine_parameters/engine_layout below.
Training uses torch.optim.AdamW with a no-decay parameter group and
torch.nn.utils.clip_grad_norm_.
"""
import math
import sys
import time
import tomllib

import h5py
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DTYPE = torch.float64  # set by main() for each pass; read at call time everywhere
STEPS = 10
torch.set_num_threads(1)


# ---------------------------------------------------------------------------------------------
# configuration


class Config:
    def __init__(self, toml_text, attributes):
        c = tomllib.loads(toml_text)
        m, a = c["model"], c["attention"]
        self.layers = m["layers"]
        self.hidden = m["hidden_size"]
        self.heads = m["heads"]
        self.head_size = self.hidden // self.heads
        self.ffn = m["ffn_size"]
        self.norm = m["norm"]
        self.position_embeddings = m["position_embeddings"]
        self.max_positions = m["max_positions"]
        self.eps = m["layer_norm_eps"]
        # ModernBERT's layout (docs/configuration.md, model.*): rotary positions, sliding
        # windows, GeGLU, bias-free linears and norms, no LayerNorm on layer 0's input.
        self.rope = m["position"] == "rope"
        self.rope_theta = m["rope_theta"]
        self.rope_theta_local = m["rope_theta_local"]
        self.window = m["attention_window"]
        self.global_every = m["global_every"]
        self.geglu = m["feed_forward"] == "geglu"
        self.bias = m["bias"]
        self.first_attention_norm = m["first_attention_norm"]
        assert m["dropout"] == 0.0 and m["attention_dropout"] == 0.0, "the golden test runs without dropout"
        self.vocab = c["tokenizer"]["vocab_size"]
        self.length = c["data"]["sequence_length"]
        self.optimizer = c["optimizer"]
        self.schedule = c["schedule"]
        self.residual = a["residual"]
        self.temperature = a["temperature"]
        self.conv = a["conv"]
        self.position = a["position"]
        self.blur = a["blur"]
        self.squeeze = a["squeeze"]
        self.output_gate = a["output_gate"]
        self.qk_norm = a["qk_norm"]
        self.normalizer = a["normalizer"]
        self.sink_logit = a["sink_logit"]
        self.clipped = a["clipped"]
        self.differential = a["differential"]
        self.guidance = a["guidance"]
        self.asa = a["asa"]
        assert not self.asa["enabled"] or self.asa["binarize"] == "step", "Gumbel noise is random"
        ids = lambda key: [int(x) for x in attributes[key].split(",") if x]
        self.delimiter_ids = ids("guidance_delimiter_ids")
        self.period_ids = ids("guidance_period_ids")


# ---------------------------------------------------------------------------------------------
# the model


def gaussian_kernel(window, sigma):
    """SesameBERT: exp(-x^2 / 2 sigma^2) for x = -(k-1)/2 .. (k-1)/2, normalised to sum 1."""
    x = torch.arange(window, dtype=DTYPE) - (window - 1) / 2
    w = torch.exp(-(x**2) / (2 * sigma**2))
    return w / w.sum()


def gaussian_blur(x, kernel):
    """Blur x [B, T, C] along T, the same kernel for every channel, replicate padding
    (SesameBERT's SYMMETRIC pad + valid conv): a depthwise F.conv1d."""
    B, T, C = x.shape
    half = (kernel.numel() - 1) // 2
    xc = x.transpose(1, 2)  # [B, C, T]
    xc = F.pad(xc, (half, half), mode="replicate")
    # F.conv1d correlates: out[t] = sum_m w[m] x_padded[t + m] = sum_m w_m x[clamp(t + m - half)]
    weight = kernel.view(1, 1, -1).expand(C, 1, -1)
    return F.conv1d(xc, weight, groups=C).transpose(1, 2)


class RMSNorm(nn.Module):
    """Zhang & Sennrich's RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) * g."""

    def __init__(self, size, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(size, dtype=DTYPE))

    def forward(self, x):
        return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + self.eps) * self.weight


class LayerNorm(nn.Module):
    """Ba et al.'s LayerNorm over the last dimension with scale g and, optionally, shift b."""

    def __init__(self, size, eps, shift):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(size, dtype=DTYPE))
        self.bias = nn.Parameter(torch.zeros(size, dtype=DTYPE)) if shift else None

    def forward(self, x):
        return F.layer_norm(x, x.shape[-1:], self.weight, self.bias, self.eps)


def windowed(cfg, layer_index):
    """Sliding-window attention: every layer but each global_every-th (0, N, 2N, ...)."""
    return cfg.window > 0 and layer_index % cfg.global_every != 0


def window_mask(cfg, T):
    """-10000 where key j is more than window // 2 positions from query i, else 0: [T, T]."""
    i = torch.arange(T).view(T, 1)
    j = torch.arange(T).view(1, T)
    return ((i - j).abs() > cfg.window // 2).to(DTYPE) * -10000.0


def rotate(x, theta):
    """RoFormer's rotary embedding (Su et al. 2021) in the GPT-NeoX pairing that ModernBERT
    uses: for each i < d/2 the pair (x_i, x_(i + d/2)) at position t is turned by the angle
    t * theta^(-2i/d), as a 2x2 rotation. x: [B, heads, T, d]."""
    d, T = x.shape[-1], x.shape[-2]
    half = d // 2
    out = torch.empty_like(x)
    for i in range(half):
        angle = torch.arange(T, dtype=DTYPE) * theta ** (-2.0 * i / d)  # [T]
        c, s = torch.cos(angle)[:, None], torch.sin(angle)[:, None]
        a, b = x[..., i : i + 1], x[..., half + i : half + i + 1]
        out[..., i : i + 1] = a * c - b * s
        out[..., half + i : half + i + 1] = a * s + b * c
    return out


class SelfAttention(nn.Module):
    def __init__(self, cfg, layer_index):
        super().__init__()
        H, nh = cfg.hidden, cfg.heads
        self.cfg = cfg
        self.layer_index = layer_index
        self.query = nn.Linear(H, H, bias=cfg.bias)
        self.key = nn.Linear(H, H, bias=cfg.bias)
        self.value = nn.Linear(H, H, bias=cfg.bias)
        self.dense = nn.Linear(H, H, bias=cfg.bias)
        self.windowed = windowed(cfg, layer_index)
        self.theta = cfg.rope_theta_local if self.windowed else cfg.rope_theta
        # Dufter et al.: learnable temperatures tau_Q, tau_K, tau_V per head.
        if cfg.temperature:
            self.tau_q = nn.Parameter(torch.ones(nh, dtype=DTYPE))
            self.tau_k = nn.Parameter(torch.ones(nh, dtype=DTYPE))
            self.tau_v = nn.Parameter(torch.ones(nh, dtype=DTYPE))
        # Dufter et al.: direct position interactions added to the logits.
        pos = cfg.position
        self.absolute = self.relative = None
        if pos["mode"] != "none" and (pos["layers"] == "all" or layer_index == 0):
            M = cfg.max_positions
            if pos["mode"] in ("absolute", "both"):
                self.absolute = nn.Parameter(torch.zeros(nh, M, M, dtype=DTYPE))  # P_h
            if pos["mode"] in ("relative", "both"):
                # directional: a_h[r] for r = i - j in -(M-1)..(M-1); symmetric: a_h[|i - j|]
                n = M if pos["relative"] == "symmetric" else 2 * M - 1
                self.relative = nn.Parameter(torch.zeros(nh, n, dtype=DTYPE))
        # Dufter et al.: convolved attention.
        if cfg.conv == "2d":
            self.conv_weight = nn.Parameter(torch.zeros(nh, 1, 3, 3, dtype=DTYPE))
            self.conv_bias = nn.Parameter(torch.zeros(nh, dtype=DTYPE))
        elif cfg.conv == "1d":
            T = cfg.length
            # W[h, f, j, k]: filter f of head h, key channel j, tap k (query offset k - 1).
            self.conv_weight = nn.Parameter(torch.zeros(nh, T, T, 3, dtype=DTYPE))
            self.conv_bias = nn.Parameter(torch.zeros(nh, T, dtype=DTYPE))
        # QK-norm (Dehghani et al.; OLMo 2, Qwen3): one norm for the queries and one for the
        # keys over the head dimension d, its scale (and LayerNorm's shift) shared by the heads.
        # The keys' LayerNorm has no shift: b on every key adds q_i . b to a whole row of
        # scores, which the softmax cancels (docs/variants.md).
        if cfg.qk_norm == "layer":
            self.q_norm = LayerNorm(cfg.head_size, cfg.eps, shift=True)
            self.k_norm = LayerNorm(cfg.head_size, cfg.eps, shift=False)
        elif cfg.qk_norm == "rms":
            self.q_norm = RMSNorm(cfg.head_size, cfg.eps)
            self.k_norm = RMSNorm(cfg.head_size, cfg.eps)
        # Gated attention (Qiu et al. 2025, G1): sigmoid(X W_theta + b) on each head's output,
        # one gate per head (W_theta: H -> heads) or per channel (H -> H).
        if cfg.output_gate != "none":
            self.gate = nn.Linear(H, nh if cfg.output_gate == "head" else H)
        if cfg.blur["target"] != "none":
            self.register_buffer("blur_kernel", gaussian_kernel(cfg.blur["window"], cfg.blur["sigma"]))
        # softmax1 (gpt-oss's sinks): a logit b_h per head in the denominator, learned or 0.
        if cfg.normalizer == "softmax1" and cfg.sink_logit == "learned":
            self.sink = nn.Parameter(torch.zeros(nh, dtype=DTYPE))
        # Differential attention (Ye et al. 2024): lambda's four vectors of d/2, shared by the
        # heads; lambda_init = 0.8 - 0.6 exp(-0.3 (l - 1)) with l counted from 1; the per-head
        # RMSNorm ("GroupNorm") over each head's d outputs, eps 1e-5, scale shared by the heads.
        if cfg.differential:
            half = cfg.head_size // 2
            for name in ("lq1", "lk1", "lq2", "lk2"):
                setattr(self, name, nn.Parameter(torch.zeros(half, dtype=DTYPE)))
            self.lambda_init = 0.8 - 0.6 * math.exp(-0.3 * ((layer_index + 1) - 1))
            self.diff_norm = RMSNorm(cfg.head_size, 1e-5)

    def normalize(self, scores, additive_mask):
        """Each row of scores to attention weights, written from the papers' formulas over the
        real keys (the mask is -10000 on the others)."""
        x = scores + additive_mask
        real = (additive_mask > -5000).to(DTYPE).expand_as(x)
        kind = self.cfg.normalizer
        if kind == "softmax":
            return torch.softmax(x, dim=-1)
        if kind == "softmax1":  # e^x_j / (e^b + sum_k e^x_k)
            b = self.sink if self.cfg.sink_logit == "learned" else torch.zeros(self.cfg.heads, dtype=DTYPE)
            e = torch.exp(x) * real
            return e / (torch.exp(b).view(1, -1, 1, 1) + e.sum(-1, keepdim=True))
        if kind == "softpick":  # ReLU(e^x - 1) / sum |e^x - 1| (Zuhri et al. 2025)
            e = (torch.exp(x) - 1) * real
            return F.relu(e) / e.abs().sum(-1, keepdim=True)
        if kind == "sigmoid":  # sigmoid(x + b), b = -log n, n the real keys of the row
            n = real.sum(-1, keepdim=True)
            return torch.sigmoid(x - torch.log(n)) * real
        if kind == "clipped":  # clip((zeta - gamma) softmax + gamma, 0, 1) (Bondarenko et al.)
            zeta, gamma = self.cfg.clipped["zeta"], self.cfg.clipped["gamma"]
            return torch.clamp((zeta - gamma) * torch.softmax(x, dim=-1) + gamma, 0, 1)
        raise ValueError(kind)

    def differential_attention(self, q, k, v, additive_mask, T):
        """(softmax(Q1 K1^T / sqrt(d/2)) - lambda softmax(Q2 K2^T / sqrt(d/2))) V, then the
        per-head RMSNorm and (1 - lambda_init)."""
        half = self.cfg.head_size // 2
        q1, q2 = q[..., :half], q[..., half:]
        k1, k2 = k[..., :half], k[..., half:]
        bias = self.position_bias(T)
        A1 = torch.softmax(q1 @ k1.transpose(-1, -2) / math.sqrt(half) + bias + additive_mask, -1)
        A2 = torch.softmax(q2 @ k2.transpose(-1, -2) / math.sqrt(half) + bias + additive_mask, -1)
        lam = torch.exp((self.lq1 * self.lk1).sum()) - torch.exp((self.lq2 * self.lk2).sum()) + self.lambda_init
        A = A1 - lam * A2
        return self.diff_norm(A @ v) * (1 - self.lambda_init), A

    def split(self, x):  # [B, T, H] -> [B, heads, T, d]
        B, T, _ = x.shape
        return x.view(B, T, self.cfg.heads, self.cfg.head_size).transpose(1, 2)

    def position_bias(self, T):
        bias = 0
        if self.absolute is not None:
            bias = bias + self.absolute[:, :T, :T]
        if self.relative is not None:
            i = torch.arange(T).view(T, 1)
            j = torch.arange(T).view(1, T)
            if self.cfg.position["relative"] == "symmetric":
                index = (i - j).abs()
            else:
                index = i - j + (self.cfg.max_positions - 1)
            bias = bias + self.relative[:, index]  # [heads, T, T]
        return bias

    def convolve(self, A):
        if self.cfg.conv == "2d":
            # One 3x3 filter per head over A as an image, zero padding, bias, ReLU.
            return F.relu(F.conv2d(A, self.conv_weight, self.conv_bias, padding=1, groups=self.cfg.heads))
        if self.cfg.conv == "1d":
            # out[b,h,i,f] = ReLU(b[h,f] + sum_{k=-1..1} sum_j W[h,f,j,k] A[b,h,i+k,j]), zeros
            # outside the sequence (Keras Conv1D along the query axis, keys as channels).
            T = A.shape[-1]
            padded = F.pad(A, (0, 0, 1, 1))  # one zero row above and below
            out = self.conv_bias[None, :, None, :]
            for k in range(3):  # tap k reads query row i + k - 1
                shifted = padded[:, :, k : k + T, :]
                out = out + torch.einsum("bhij,hfj->bhif", shifted, self.conv_weight[..., k])
            return F.relu(out)
        return A

    def forward(self, x, additive_mask, carried):
        """x [B, T, H]; additive_mask [B, 1, 1, T]; carried: RealFormer's running sum of the
        previous layers' scores (None before the first layer). Returns the attention output,
        the softmax output A and the running sum to carry."""
        T = x.shape[1]
        q, k, v = self.query(x), self.key(x), self.value(x)
        if self.cfg.blur["target"] == "values":
            v = gaussian_blur(v, self.blur_kernel)
        q, k, v = self.split(q), self.split(k), self.split(v)
        if self.cfg.qk_norm != "none":  # before the temperature (docs/variants.md)
            q, k = self.q_norm(q), self.k_norm(k)
        if self.cfg.rope:  # after QK-norm (OLMo 2's order); a scalar temperature commutes
            q, k = rotate(q, self.theta), rotate(k, self.theta)
        if self.windowed:  # the band: keys more than window // 2 away are masked
            additive_mask = additive_mask + window_mask(self.cfg, T)
        if self.cfg.temperature:
            q = q * self.tau_q.view(1, -1, 1, 1)
            k = k * self.tau_k.view(1, -1, 1, 1)
            v = v * self.tau_v.view(1, -1, 1, 1)
        B = x.shape[0]
        if self.cfg.differential:
            context, A = self.differential_attention(q, k, v, additive_mask, T)
            return self.finish(x, context, B, T), A, carried
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.cfg.head_size)
        scores = scores + self.position_bias(T)
        # RealFormer: Attention(Q, K, V, Prev) = softmax(QK^T / sqrt(d) + Prev) V, with Prev
        # the previous layer's pre-softmax scores (the running sum, unmasked); optionally the
        # running mean over the layers so far. The mask is added afterwards, never carried.
        if self.cfg.residual != "none":
            if carried is not None:
                scores = scores + carried
            carried = scores
            if self.cfg.residual == "mean":
                scores = scores / (self.layer_index + 1)
        A = self.normalize(scores, additive_mask)
        context = self.convolve(A) @ v  # [B, heads, T, d]
        return self.finish(x, context, B, T), A, carried

    def finish(self, x, context, B, T):
        """The output gate, the heads' concatenation, the context blur and W_O."""
        if self.cfg.output_gate == "head":  # Y' = Y * sigmoid(X W + b), one scalar per head
            context = context * torch.sigmoid(self.gate(x)).transpose(1, 2)[..., None]
        elif self.cfg.output_gate == "element":  # one gate per channel of each head
            context = context * self.split(torch.sigmoid(self.gate(x)))
        context = context.transpose(1, 2).reshape(B, T, self.cfg.hidden)
        if self.cfg.blur["target"] == "context":
            context = gaussian_blur(context, self.blur_kernel)
        return self.dense(context)


class GradientReversal(torch.autograd.Function):
    """Ganin & Lempitsky's gradient reversal layer: identity forward, -gradient backward."""

    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Adversary(nn.Module):
    """ASA (Wu et al.): per layer, a single-head full-width score matrix on the detached layer
    input, S = (X Wq + bq)(X Wk + bk)^T / sqrt(H) + (-10000 on padding keys), binarised to a
    keep-mask M = 1[S > 0] with the gradient of sigmoid(S) (straight-through), then gradient
    reversal; padding keys always masked."""

    def __init__(self, hidden):
        super().__init__()
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)

    def forward(self, x, real):
        x = x.detach()
        keep_keys = real.to(DTYPE)[:, None, :]  # [B, 1, T]
        S = self.query(x) @ self.key(x).transpose(1, 2) / math.sqrt(x.shape[-1])
        S = S + (1.0 - keep_keys) * -10000.0
        soft = torch.sigmoid(S)
        hard = (S > 0).to(DTYPE)
        M = hard + (soft - soft.detach())
        return GradientReversal.apply(M) * keep_keys


class Layer(nn.Module):
    """A BERT layer: Post-LN (LN(x + Attn(x)), LN(h + FFN(h))) or Pre-LN (x + Attn(LN(x)))."""

    def __init__(self, cfg, layer_index):
        super().__init__()
        self.pre_norm = cfg.norm == "pre"
        self.geglu = cfg.geglu
        self.attention = SelfAttention(cfg, layer_index)
        # ModernBERT: no LayerNorm on layer 0's attention input (the embeddings are normed).
        first_identity = self.pre_norm and layer_index == 0 and not cfg.first_attention_norm
        self.attention_norm = None if first_identity else LayerNorm(cfg.hidden, cfg.eps, shift=cfg.bias)
        # GeGLU (Shazeer 2020): GELU(x W) * (x V), W and V one [2F, H] projection (ModernBERT's Wi).
        self.intermediate = nn.Linear(cfg.hidden, (2 if cfg.geglu else 1) * cfg.ffn, bias=cfg.bias)
        self.output = nn.Linear(cfg.ffn, cfg.hidden, bias=cfg.bias)
        self.output_norm = LayerNorm(cfg.hidden, cfg.eps, shift=cfg.bias)

    def ffn(self, h):
        if self.geglu:
            a, gate = self.intermediate(h).chunk(2, dim=-1)
            return self.output(F.gelu(a) * gate)
        return self.output(F.gelu(self.intermediate(h)))

    def forward(self, x, mask, carried):
        if self.pre_norm:
            normed = x if self.attention_norm is None else self.attention_norm(x)
            a, A, carried = self.attention(normed, mask, carried)
            h = x + a
            return h + self.ffn(self.output_norm(h)), A, carried
        a, A, carried = self.attention(x, mask, carried)
        h = self.attention_norm(x + a)
        return self.output_norm(h + self.ffn(h)), A, carried


class SqueezeExcitation(nn.Module):
    """SesameBERT: squeeze each layer's output to its mean (over real tokens and features),
    excite with a two-layer bottleneck and sigmoid, combine the layers with the weights."""

    def __init__(self, cfg):
        super().__init__()
        L = cfg.layers
        self.fc1 = nn.Linear(L, max(1, L // cfg.squeeze["ratio"]))
        self.fc2 = nn.Linear(max(1, L // cfg.squeeze["ratio"]), L)
        self.weighted_average = cfg.squeeze["combine"] == "weighted_average"

    def forward(self, outputs, real):
        U = torch.stack(outputs, dim=1)  # [B, L, T, H]
        keep = real.to(DTYPE)[:, None, :, None]
        z = (U * keep).sum(dim=(2, 3)) / (keep.sum(dim=(2, 3)) * U.shape[-1])  # [B, L]
        s = torch.sigmoid(self.fc2(F.relu(self.fc1(z))))
        if self.weighted_average:  # sum_l s_l U_l / sum_l s_l (the paper)
            return (s[:, :, None, None] * U).sum(1) / s.sum(1)[:, None, None]
        return s[:, -1, None, None] * U[:, -1]  # s_L U_L (the official code)


class Bert(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        H = cfg.hidden
        self.word_embeddings = nn.Embedding(cfg.vocab, H)
        self.position_embeddings = nn.Embedding(cfg.max_positions, H) if cfg.position_embeddings else None
        self.embedding_norm = LayerNorm(H, cfg.eps, shift=cfg.bias)
        self.layers = nn.ModuleList(Layer(cfg, i) for i in range(cfg.layers))
        self.final_norm = LayerNorm(H, cfg.eps, shift=cfg.bias) if cfg.norm == "pre" else None
        self.squeeze = SqueezeExcitation(cfg) if cfg.squeeze["enabled"] else None
        self.adversaries = nn.ModuleList(Adversary(H) for _ in range(cfg.layers)) if cfg.asa["enabled"] else None
        # MLM head: dense, GELU, LayerNorm, decoder tied to the word embeddings, own bias.
        self.transform = nn.Linear(H, H, bias=cfg.bias)
        self.transform_norm = LayerNorm(H, cfg.eps, shift=cfg.bias)
        self.decoder_bias = nn.Parameter(torch.zeros(cfg.vocab, dtype=DTYPE))

    def forward(self, ids, real, labels, adversarial=False):
        """Returns the logits at the selected positions, their mean cross-entropy, each layer's
        softmax output, the logits at position 0, (adversarial pass) the keep-masks and the
        final hidden states [B, T, H]."""
        T = ids.shape[1]
        x = self.word_embeddings(ids)
        if self.position_embeddings is not None:
            x = x + self.position_embeddings(torch.arange(T))[None]
        x = self.embedding_norm(x)
        mask = (1.0 - real.to(DTYPE))[:, None, None, :] * -10000.0  # BERT's extended mask
        carried, probabilities, outputs, masks = None, [], [], []
        for l, layer in enumerate(self.layers):
            layer_mask = mask
            if adversarial:  # the adversary's mask replaces the padding mask
                M = self.adversaries[l](x, real)
                masks.append(M)
                layer_mask = ((1.0 - M) * -10000.0)[:, None]
            x, A, carried = layer(x, layer_mask, carried)
            probabilities.append(A)
            outputs.append(x)
        if self.squeeze is not None:
            x = self.squeeze(outputs, real)
        if self.final_norm is not None:
            x = self.final_norm(x)
        selected = labels.reshape(-1) != -100
        rows = x.reshape(-1, self.cfg.hidden)[selected]
        logits = self.head(rows)
        loss = F.cross_entropy(logits, labels.reshape(-1)[selected])
        return logits, loss, probabilities, self.head(x[:, 0]), masks, x

    def head(self, rows):
        h = self.transform_norm(F.gelu(self.transform(rows)))
        return F.linear(h, self.word_embeddings.weight, self.decoder_bias)


# ---------------------------------------------------------------------------------------------
# attention guidance (Deshpande & Narasimhan 2020)


def guidance_heads(cfg):
    """The pattern of each head of a guided layer: the explicit list, or lambda * heads
    guided heads: one [Next], one [Prev], the rest [First] (the paper's split)."""
    g = cfg.guidance
    if g["heads"]:
        return list(g["heads"])
    k = int(math.floor(g["head_fraction"] * cfg.heads + 0.5))
    return [("next" if h == 0 else "prev" if h == 1 else "first") if h < k else "none" for h in range(cfg.heads)]


def guided_layers(cfg):
    spec = cfg.guidance["layers"].strip()
    if spec == "all":
        return list(range(cfg.layers))
    return [int(s) for s in spec.split(",")]


def guidance_target(cfg, pattern, ids, real):
    """P [B, T, T] over the real positions (padding rows and columns 0)."""
    B, T = ids.shape
    P = np.zeros((B, T, T))
    uniform_edges = cfg.guidance["edge_rows"] == "uniform"
    for b in range(B):
        n = int(real[b].sum())
        for i in range(n):
            if pattern == "next":
                if i + 1 < n:
                    P[b, i, i + 1] = 1.0
                elif uniform_edges:
                    P[b, i, :n] = 1.0 / n
            elif pattern == "prev":
                if i > 0:
                    P[b, i, i - 1] = 1.0
                elif uniform_edges:
                    P[b, i, :n] = 1.0 / n
            elif pattern == "first":
                P[b, i, 0] = 1.0
            elif pattern in ("delim", "period"):
                wanted = cfg.delimiter_ids if pattern == "delim" else cfg.period_ids
                hits = [j for j in range(n) if int(ids[b, j]) in wanted]
                for j in hits:
                    P[b, i, j] = 1.0 / len(hits)
    return torch.tensor(P, dtype=DTYPE)


def guidance_loss(cfg, probabilities, ids, real):
    heads = guidance_heads(cfg)
    realf = real.to(DTYPE)
    R = realf[:, :, None] * realf[:, None, :]  # [B, T, T] real (query, key) pairs
    B = ids.shape[0]
    frobenius = cfg.guidance["loss"] == "frobenius"
    targets = {}
    total = torch.zeros((), dtype=DTYPE)
    for l in guided_layers(cfg):
        A = probabilities[l]
        if frobenius:
            # sum over guided heads of (1/B) sum_b ||(A - P) o R||_F^2
            for h, pattern in enumerate(heads):
                if pattern == "none":
                    continue
                P = targets.setdefault(pattern, guidance_target(cfg, pattern, ids, real))
                total = total + (((A[:, h] - P) * R) ** 2).sum() / B
        else:
            # the official code: per pattern, the mean of (A - P)^2 over the real cells of the
            # heads with that pattern, summed over patterns and layers
            for pattern in sorted(set(heads) - {"none"}):
                P = targets.setdefault(pattern, guidance_target(cfg, pattern, ids, real))
                hs = [h for h, p in enumerate(heads) if p == pattern]
                squares = sum((((A[:, h] - P) * R) ** 2).sum() for h in hs)
                total = total + squares / (R.sum() * len(hs))
    return total


def guidance_weight(cfg, step):
    g = cfg.guidance
    alpha, T = g["weight"], cfg.schedule["steps"]
    if g["schedule"] == "linear":  # the paper: linear decay from alpha_0 to 0
        return alpha * max(0.0, 1.0 - step / T)
    if step < g["hold_steps"]:  # the code: constant, then linear to 0
        return alpha
    return alpha * max(0.0, (T - step) / max(1, T - g["hold_steps"]))


def kl(p_logits, q_logits):
    """KL(softmax(p) || softmax(q)), mean over the rows, with F.kl_div."""
    return F.kl_div(F.log_softmax(q_logits, -1), F.log_softmax(p_logits, -1), reduction="batchmean", log_target=True)


def kl_per_sequence(p_logits, q_logits, real):
    """The official code's reduction (adversarialSA, modeling/utils.py, divergence):
    nn.KLDivLoss(reduction="batchmean") on [B, T, V] logits, i.e. KL(softmax(p) || softmax(q))
    summed over the positions and the vocabulary and divided by B (batchmean divides by the
    input's first dimension). Padding positions are excluded: both sides' logits are set to
    the same zeros there, so their terms are exactly 0 (and carry no gradient)."""
    keep = real[..., None]
    p = torch.where(keep, p_logits, torch.zeros((), dtype=p_logits.dtype))
    q = torch.where(keep, q_logits, torch.zeros((), dtype=q_logits.dtype))
    div = nn.KLDivLoss(reduction="batchmean", log_target=True)
    return div(F.log_softmax(q, -1), F.log_softmax(p, -1))


def asa_loss(cfg, model, batch, clean):
    """ASA's pre-training terms: an adversarial pass, the token-level KL (kl_reduction:
    masked_mean, the mean over the selected positions; batchmean, the official per-sequence sum
    over every real position), the sentence-level KL at position 0, and the mask penalty
    w * sum_l sum M_l / B."""
    ids, real, labels = batch
    clean_logits, clean_first, clean_hidden = clean
    adv_logits, _, _, adv_first, masks, adv_hidden = model(ids, real, labels, adversarial=True)
    if cfg.asa["kl"] == "forward":  # the paper: D[p(y|x) || p(y|x, mu)]
        sym = lambda d: d
    else:  # the code: both directions halved
        sym = lambda d: lambda p, q, *rest: 0.5 * (d(p, q, *rest) + d(q, p, *rest))
    if cfg.asa["kl_reduction"] == "masked_mean":
        token = sym(kl)(clean_logits, adv_logits)
    else:
        token = sym(kl_per_sequence)(model.head(clean_hidden), model.head(adv_hidden), real)
    tau = cfg.asa["tau"]
    w = tau if cfg.asa["penalty"] == "tau" else tau * tau
    penalty = w * sum(M.sum() for M in masks) / ids.shape[0]
    return token + sym(kl)(clean_first, adv_first) + penalty


def objective(model, cfg, batch, step):
    ids, real, labels = batch
    logits, mlm, probabilities, first, _, hidden = model(ids, real, labels)
    total, ag = mlm, None
    if cfg.guidance["enabled"]:
        ag = guidance_loss(cfg, probabilities, ids, real)
        total = total + guidance_weight(cfg, step) * ag
    if cfg.asa["enabled"]:
        total = total + asa_loss(cfg, model, batch, (logits, first, hidden))
    return logits, mlm, total, ag


# ---------------------------------------------------------------------------------------------
# optimiser: torch.optim.AdamW, the engine's schedule and decay rule, clip_grad_norm_


def learning_rate(cfg, step):
    """The engine's schedule (core/train/adamw.h): step s (0-based) warms up with
    peak * (s + 1) / warmup, then decays linearly to 0 at s = steps (or stays at peak)."""
    peak, warmup, total = cfg.optimizer["learning_rate"], cfg.schedule["warmup_steps"], cfg.schedule["steps"]
    if step < warmup:
        return peak * (step + 1) / warmup
    if cfg.schedule["decay"] != "linear":
        return peak
    return peak * max(0.0, (total - step) / max(1, total - warmup))


def parameter_groups(model, weight_decay):
    """No weight decay on biases, LayerNorm parameters and other 1-d tensors (the engine's
    documented rule, BERT's convention)."""
    no_decay = set()
    for module in model.modules():
        if isinstance(module, nn.LayerNorm):
            no_decay.update(id(p) for p in module.parameters(recurse=False))
    for name, p in model.named_parameters():
        if name.endswith("bias") or p.dim() <= 1:
            no_decay.add(id(p))
    params = list(model.parameters())
    return [
        {"params": [p for p in params if id(p) not in no_decay], "weight_decay": weight_decay},
        {"params": [p for p in params if id(p) in no_decay], "weight_decay": 0.0},
    ]


# ---------------------------------------------------------------------------------------------
# the engine's parameter names and storage layout


def engine_layout(model, cfg):
    """engine name -> (list of this model's tensors, how they map): "same", "cat" (the fused
    qkv: query, key, value stacked along dim 0), or "reshape" (1-D convolution: the engine
    stores W[h, f, j, k] as [heads * T, T, 3] and b[h, f] as [heads * T])."""
    layout = {
        "token_embedding.weight": ([model.word_embeddings.weight], "same"),
        "embedding_norm.weight": ([model.embedding_norm.weight], "same"),
        "embedding_norm.bias": ([model.embedding_norm.bias], "same"),
        "mlm_transform.weight": ([model.transform.weight], "same"),
        "mlm_transform.bias": ([model.transform.bias], "same"),
        "mlm_norm.weight": ([model.transform_norm.weight], "same"),
        "mlm_norm.bias": ([model.transform_norm.bias], "same"),
        "mlm_bias": ([model.decoder_bias], "same"),
    }
    if model.position_embeddings is not None:
        layout["position_embedding.weight"] = ([model.position_embeddings.weight], "same")
    if model.final_norm is not None:
        layout["final_norm.weight"] = ([model.final_norm.weight], "same")
        layout["final_norm.bias"] = ([model.final_norm.bias], "same")
    if model.adversaries is not None:
        for l, adversary in enumerate(model.adversaries):
            for part in ("query", "key"):
                for what in ("weight", "bias"):
                    layout[f"adversaries.{l}.{part}.{what}"] = ([getattr(getattr(adversary, part), what)], "same")
    if model.squeeze is not None:
        for fc in ("fc1", "fc2"):
            for what in ("weight", "bias"):
                layout[f"squeeze.{fc}.{what}"] = ([getattr(getattr(model.squeeze, fc), what)], "same")
    for i, layer in enumerate(model.layers):
        p = f"layers.{i}."
        att = layer.attention
        for what in ("weight", "bias"):
            layout[p + "attention.qkv." + what] = (
                [getattr(att.query, what), getattr(att.key, what), getattr(att.value, what)], "cat")
            layout[p + "attention.output." + what] = ([getattr(att.dense, what)], "same")
            layout[p + "attention_norm." + what] = ([getattr(layer.attention_norm, what, None)], "same")
            layout[p + "ffn_in." + what] = ([getattr(layer.intermediate, what)], "same")
            layout[p + "ffn_out." + what] = ([getattr(layer.output, what)], "same")
            layout[p + "ffn_norm." + what] = ([getattr(layer.output_norm, what)], "same")
        if cfg.temperature:
            for which in ("q", "k", "v"):
                layout[p + f"attention.temperature_{which}"] = ([getattr(att, f"tau_{which}")], "same")
        if cfg.qk_norm != "none":
            for which in ("q", "k"):
                norm = getattr(att, f"{which}_norm")
                layout[p + f"attention.{which}_norm.weight"] = ([norm.weight], "same")
                if getattr(norm, "bias", None) is not None:
                    layout[p + f"attention.{which}_norm.bias"] = ([norm.bias], "same")
        if cfg.output_gate != "none":
            for what in ("weight", "bias"):
                layout[p + "attention.gate." + what] = ([getattr(att.gate, what)], "same")
        if cfg.normalizer == "softmax1" and cfg.sink_logit == "learned":
            layout[p + "attention.normalizer.sink_logit"] = ([att.sink], "same")
        if cfg.differential:
            for which in ("q1", "k1", "q2", "k2"):
                layout[p + f"attention.differential.lambda_{which}"] = ([getattr(att, "l" + which)], "same")
            layout[p + "attention.differential.norm.weight"] = ([att.diff_norm.weight], "same")
        if att.absolute is not None:
            layout[p + "attention.position.absolute"] = ([att.absolute], "same")
        if att.relative is not None:
            layout[p + "attention.position.relative"] = ([att.relative], "same")
        if cfg.conv == "2d":
            layout[p + "attention.conv.weight"] = ([att.conv_weight], "same")
            layout[p + "attention.conv.bias"] = ([att.conv_bias], "same")
        elif cfg.conv == "1d":
            layout[p + "attention.conv.weight"] = ([att.conv_weight], "reshape")
            layout[p + "attention.conv.bias"] = ([att.conv_bias], "reshape")
    # Bias-free layouts (model.bias = false) and layer 0 without its attention norm have no
    # such tensors in either model.
    return {name: (tensors, how) for name, (tensors, how) in layout.items()
            if all(t is not None for t in tensors)}


def load_engine_parameters(layout, engine):
    missing = set(engine) ^ set(layout)
    assert not missing, f"parameter names differ between engine and reference: {sorted(missing)}"
    with torch.no_grad():
        for name, (tensors, how) in layout.items():
            value = torch.as_tensor(engine[name], dtype=DTYPE)
            if how == "cat":
                for t, part in zip(tensors, value.chunk(3, dim=0)):
                    t.copy_(part)
            else:
                tensors[0].copy_(value.reshape(tensors[0].shape))


def to_engine_layout(layout, pick):
    """engine name -> numpy array of pick(tensor) (the tensor itself or its gradient)."""
    out = {}
    for name, (tensors, how) in layout.items():
        parts = [pick(t) for t in tensors]
        if how == "cat":
            value = torch.cat(parts, dim=0)
        elif how == "reshape":
            value = parts[0].reshape(-1, *parts[0].shape[2:]) if parts[0].dim() == 4 else parts[0].reshape(-1)
        else:
            value = parts[0]
        out[name] = value.detach().numpy().copy()
    return out


# ---------------------------------------------------------------------------------------------
# one case


def read_case(root, case):
    with h5py.File(f"{root}/{case}/input/checkpoints/step-0000000.h5", "r") as f:
        toml_text = f["config"][()]
        toml_text = toml_text.decode() if isinstance(toml_text, bytes) else str(toml_text)
        attributes = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f["attributes"].attrs.items()}
        engine_params = {name: d[()] for name, d in f["tensors/model"].items()}
        ids = torch.as_tensor(f["tensors/batch/input_ids"][()], dtype=torch.long)
        real = torch.as_tensor(f["tensors/batch/attention_mask"][()].astype(bool))
        labels = torch.as_tensor(f["tensors/batch/labels"][()], dtype=torch.long)
    return Config(toml_text, attributes), engine_params, (ids, real, labels)


def run_case(cfg, engine_params, batch):
    """The quantities of one case in the current DTYPE, as numpy float64 arrays by key."""
    model = Bert(cfg).to(DTYPE)
    layout = engine_layout(model, cfg)
    load_engine_parameters(layout, engine_params)
    out = {}

    logits, mlm, total, ag = objective(model, cfg, batch, 0)
    total.backward()
    out["logits"] = logits.detach().numpy().copy()
    out["mlm_loss"] = mlm.detach().numpy().copy()
    out["total_loss"] = total.detach().numpy().copy()
    if ag is not None:
        out["guidance_loss"] = ag.detach().numpy().copy()
    zero_if_none = lambda t: t.grad if t.grad is not None else torch.zeros_like(t)
    for name, g in to_engine_layout(layout, zero_if_none).items():
        out["grad/" + name] = g

    o = cfg.optimizer
    optimizer = torch.optim.AdamW(parameter_groups(model, o["weight_decay"]), lr=o["learning_rate"],
                                  betas=(o["beta1"], o["beta2"]), eps=o["eps"])
    totals, mlms, norms = [], [], []
    for step in range(STEPS):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(cfg, step)
        optimizer.zero_grad(set_to_none=True)
        _, mlm, total, _ = objective(model, cfg, batch, step)
        total.backward()
        max_norm = o["clip_norm"] if o["clip_norm"] > 0 else float("inf")
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        totals.append(total.item())
        mlms.append(mlm.item())
        norms.append(norm.item())
    out["step_total_losses"] = np.array(totals)
    out["step_mlm_losses"] = np.array(mlms)
    out["step_grad_norms"] = np.array(norms)
    for name, value in to_engine_layout(layout, lambda t: t).items():
        out["final/" + name] = value
    return out


def main():
    global DTYPE
    root, cases = sys.argv[1], sys.argv[2:]
    # Which PyTorch the engine is compared with: Debian's 1.13, or the CUDA line's wheel.
    print(f"reference: PyTorch {torch.__version__}")
    for case in cases:
        start = time.time()
        cfg, engine_params, batch = read_case(root, case)
        DTYPE = torch.float64
        out = run_case(cfg, engine_params, batch)
        DTYPE = torch.float32
        out32 = run_case(cfg, engine_params, batch)
        with h5py.File(f"{root}/{case}/reference.h5", "w") as f:
            f.attrs["format_version"] = np.int64(1)
            f.attrs["step"] = np.int64(0)
            f.attrs["val_loss"] = np.float64("nan")
            group = f.create_group("tensors")
            for prefix, values in (("", out), ("torch_float32/", out32)):
                for key, value in values.items():
                    group.create_dataset(prefix + key, data=np.asarray(value, dtype=np.float64))
        print(f"{case}: {1000 * (time.time() - start):.0f} ms; gradient norms "
              + " ".join(f"{n:.3g}" for n in out["step_grad_norms"]), flush=True)


if __name__ == "__main__":
    main()
