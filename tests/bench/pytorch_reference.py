"""Python PyTorch reference for the pretraining benchmark.

The same encoder as AttnLab's (Post-LN BERT layers, fused qkv, GELU FFN, tied MLM head,
BERT init), trained with torch.optim.AdamW, written the way a typical Python training
script (and HuggingFace's BertForMaskedLM) does it: logits on every position, the loss
ignoring unselected ones. Prints one line: 'pytorch ms_per_step=... tokens_per_s=... peak_rss_mb=...'.
usage: pytorch_reference.py LAYERS HIDDEN HEADS FFN VOCAB BATCH SEQ STEPS WARMUP THREADS [MODE [DEVICE [DTYPE [MODEL]]]]

MODE: eager (default) or compile. With PyTorch 2.x the attention is
F.scaled_dot_product_attention (what Hugging Face's BERT runs by default since 2.x), and
`compile` trains torch.compile(model) (default inductor backend; its first steps, which
compile, fall in the warm-up and are not timed). DEVICE: cpu (default) or cuda. DTYPE:
float32 (default) or bf16 (torch.autocast with bfloat16; weights and AdamW state float32).
MODEL: bert (default, the encoder above) or modernbert: transformers' own
ModernBertForMaskedLM (bench_pretraining --modernbert) with the engine's benchmark layout
(RoPE 160000/10000, a 128-token window in two of every three layers, GeGLU FFN, no biases,
Pre-LN, no dropout), its SDPA attention, and transformers' default sparse_prediction = false
(logits at every position).
"""
import contextlib
import math
import os
import resource
import sys
import time

import torch
import torch.nn.functional as F

L, H, NH, FF, V, B, T, STEPS, WARMUP, THREADS = (int(a) for a in sys.argv[1:11])
MODE = sys.argv[11] if len(sys.argv) > 11 else "eager"
DEVICE = sys.argv[12] if len(sys.argv) > 12 else "cpu"
DTYPE = sys.argv[13] if len(sys.argv) > 13 else "float32"
MODEL = sys.argv[14] if len(sys.argv) > 14 else "bert"
SDPA = hasattr(F, "scaled_dot_product_attention")
if THREADS > 0:  # 0: PyTorch's own default (the GPU benchmark passes 0)
    torch.set_num_threads(THREADS)
torch.manual_seed(0)


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(H, 3 * H)
        self.out = torch.nn.Linear(H, H)
        self.ln1 = torch.nn.LayerNorm(H, eps=1e-12)
        self.ffn_in = torch.nn.Linear(H, FF)
        self.ffn_out = torch.nn.Linear(FF, H)
        self.ln2 = torch.nn.LayerNorm(H, eps=1e-12)
        self.drop = torch.nn.Dropout(0.1)
        self.attn_drop = torch.nn.Dropout(0.1)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, NH, H // NH).permute(2, 0, 3, 1, 4)
        if SDPA:
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                 dropout_p=0.1 if self.training else 0.0)
        else:
            scores = q @ k.transpose(-2, -1) / math.sqrt(H // NH) + mask
            ctx = self.attn_drop(scores.softmax(-1)) @ v
        ctx = ctx.transpose(1, 2).reshape(b, t, H)
        h = self.ln1(x + self.drop(self.out(ctx)))
        return self.ln2(h + self.drop(self.ffn_out(F.gelu(self.ffn_in(h)))))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(V, H)
        self.pos = torch.nn.Embedding(512, H)
        self.ln = torch.nn.LayerNorm(H, eps=1e-12)
        self.drop = torch.nn.Dropout(0.1)
        self.layers = torch.nn.ModuleList(Layer() for _ in range(L))
        self.transform = torch.nn.Linear(H, H)
        self.head_ln = torch.nn.LayerNorm(H, eps=1e-12)
        self.bias = torch.nn.Parameter(torch.zeros(V))
        for m in self.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Embedding)):
                m.weight.data.normal_(0, 0.02)
            if isinstance(m, torch.nn.Linear):
                m.bias.data.zero_()

    def forward(self, ids, attn_mask, labels):
        x = self.drop(self.ln(self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))))
        mask = (1.0 - attn_mask[:, None, None, :].float()) * -10000.0
        for layer in self.layers:
            x = layer(x, mask)
        logits = F.linear(self.head_ln(F.gelu(self.transform(x))), self.tok.weight, self.bias)
        return F.cross_entropy(logits.view(-1, V), labels.view(-1), ignore_index=-100)


class ModernBert(torch.nn.Module):
    """transformers' ModernBertForMaskedLM behind Model's forward(ids, attn_mask, labels)."""

    def __init__(self):
        super().__init__()
        from transformers import ModernBertConfig, ModernBertForMaskedLM
        config = ModernBertConfig(vocab_size=V, hidden_size=H, intermediate_size=FF,
                                  num_hidden_layers=L, num_attention_heads=NH,
                                  max_position_embeddings=max(T, 512), local_attention=128,
                                  global_attn_every_n_layers=3, global_rope_theta=160000.0,
                                  local_rope_theta=10000.0, pad_token_id=0, bos_token_id=1,
                                  eos_token_id=2, cls_token_id=1, sep_token_id=2)
        config._attn_implementation = "sdpa"
        self.inner = ModernBertForMaskedLM(config)

    def forward(self, ids, attn_mask, labels):
        return self.inner(input_ids=ids, attention_mask=attn_mask.long(), labels=labels).loss


model = (ModernBert() if MODEL == "modernbert" else Model()).to(DEVICE)
step_model = torch.compile(model) if MODE == "compile" else model
decay = [p for n, p in model.named_parameters() if p.dim() > 1]
no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                         {"params": no_decay, "weight_decay": 0.0}], lr=1e-4, betas=(0.9, 0.98), eps=1e-6)
gen = torch.Generator().manual_seed(1)
ids = torch.randint(5, V, (B, T), generator=gen)
attn = torch.ones(B, T, dtype=torch.bool)
selected = torch.rand(B, T, generator=gen) < 0.15
labels = torch.where(selected, ids, torch.full_like(ids, -100))
ids, attn, labels = ids.to(DEVICE), attn.to(DEVICE), labels.to(DEVICE)


def autocast():
    if DTYPE == "bf16":
        return torch.autocast(device_type=DEVICE, dtype=torch.bfloat16)
    return contextlib.nullcontext()


def sync():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def train_step():
    opt.zero_grad(set_to_none=True)
    with autocast():
        loss = step_model(ids, attn, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


def category(name):
    """The kernel families bench_gpu's engine profile uses (tests/bench/kernel_profile.cpp)."""
    has = lambda *s: any(x in name for x in s)
    if has("gemm", "nvjet", "xmma", "cutlass", "cublas"):
        return "gemm"
    if has("fmha", "flash", "attention", "Attention"):
        return "attention"
    if has("adam", "Adam", "multi_tensor", "foreach"):
        return "optimizer"
    if has("layer_norm", "LayerNorm", "softmax", "Softmax"):
        return "norm/softmax"
    if has("Memcpy", "Memset", "memcpy", "memset"):
        return "memcpy/memset"
    if has("triton"):
        return "triton (fused)"
    return "other element-wise"


def profile_steps(trace, n):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            train_step()
        sync()
    prof.export_chrome_trace(trace)
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
               and e.time_range.end > e.time_range.start]
    spans = sorted((e.time_range.start, e.time_range.end) for e in kernels)
    busy, end = 0.0, 0.0
    for s, e in spans:
        busy += max(0.0, e - max(s, end))
        end = max(end, e)
    wall = (spans[-1][1] - spans[0][0]) if spans else 0.0
    print(f"profile pytorch {MODE}: {n} steps, GPU busy {busy / 1000:.1f} of {wall / 1000:.1f} ms"
          f" ({100 * busy / wall if wall else 0:.0f}%)")
    totals, names = {}, {}
    for e in kernels:
        c = category(e.name)
        ms, calls = totals.get(c, (0.0, 0))
        totals[c] = (ms + e.time_range.elapsed_us() / 1000, calls + 1)
        ms, calls = names.get(e.name, (0.0, 0))
        names[e.name] = (ms + e.time_range.elapsed_us() / 1000, calls + 1)
    for c, (ms, calls) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        print(f"  category {c:<20} {ms / n:8.2f} ms/step {calls // n:6d} kernels/step")
    for name, (ms, calls) in sorted(names.items(), key=lambda kv: -kv[1][0])[:20]:
        print(f"  kernel {ms / n:8.2f} ms/step x{calls // n:<5d} {name[:96]}")


times = []
for step in range(WARMUP + STEPS):
    t0 = time.perf_counter()
    loss = train_step()
    sync()
    if step >= WARMUP:
        times.append(time.perf_counter() - t0)
sec = sorted(times)[len(times) // 2]
PROFILE = os.environ.get("ATTNLAB_BENCH_PROFILE")  # bench_gpu --profile: where the time goes
if PROFILE and DEVICE == "cuda":
    profile_steps(PROFILE + f"_{MODE}.json", 3)
with open("/proc/self/maps") as maps:
    libs = [l.split()[-1] for l in maps if "libopenblas" in l or "libblas.so" in l]
print("pytorch BLAS: " + (next((l for l in libs if "libopenblas" in l), libs[0] if libs else "unknown")))
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(f"pytorch {torch.__version__} {MODE}" + (" sdpa" if SDPA else "") +
      (" transformers ModernBertForMaskedLM" if MODEL == "modernbert" else ""))
print(f"pytorch ms_per_step={sec * 1000:.1f} tokens_per_s={B * T / sec:.1f} peak_rss_mb={rss:.1f} loss={loss.item():.4f}")
