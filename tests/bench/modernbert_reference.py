"""Hugging Face transformers' ModernBertForMaskedLM as the reference of bench_pretraining
--modernbert: the same shapes as the engine's ModernBERT-layout step (RoPE 160000/10000, a
128-token window in two of every three layers, GeGLU, no biases, Pre-LN, no dropout),
trained with torch.optim.AdamW as a Python script does it, on the same kind of batch (15% of
positions selected, every position real). The model is transformers' own: its SDPA attention
(the default) in `eager` mode, torch.compile(model) in `compile` mode (its first steps, which
compile, fall in the warm-up and are not timed). sparse_prediction stays at transformers'
default (off: logits at every position; the engine computes them at the selected ones, as
ModernBERT's own training code with sparse_prediction does).
Prints 'pytorch ms_per_step=... tokens_per_s=... peak_rss_mb=... loss=...' as
pytorch_reference.py does.
usage: modernbert_reference.py LAYERS HIDDEN HEADS FFN VOCAB BATCH SEQ STEPS WARMUP THREADS [MODE [DEVICE [DTYPE]]]
"""
import contextlib
import resource
import sys
import time

import torch
from transformers import ModernBertConfig, ModernBertForMaskedLM

L, H, NH, FF, V, B, T, STEPS, WARMUP, THREADS = (int(a) for a in sys.argv[1:11])
MODE = sys.argv[11] if len(sys.argv) > 11 else "eager"
DEVICE = sys.argv[12] if len(sys.argv) > 12 else "cpu"
DTYPE = sys.argv[13] if len(sys.argv) > 13 else "float32"
if THREADS > 0:
    torch.set_num_threads(THREADS)
torch.manual_seed(0)

config = ModernBertConfig(vocab_size=V, hidden_size=H, intermediate_size=FF, num_hidden_layers=L,
                          num_attention_heads=NH, max_position_embeddings=max(T, 512),
                          local_attention=128, global_attn_every_n_layers=3,
                          global_rope_theta=160000.0, local_rope_theta=10000.0, pad_token_id=0,
                          bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2)
config._attn_implementation = "sdpa"
model = ModernBertForMaskedLM(config).to(DEVICE).train()
step_model = torch.compile(model) if MODE == "compile" else model
decay = [p for n, p in model.named_parameters() if p.dim() > 1]
no_decay = [p for n, p in model.named_parameters() if p.dim() <= 1]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                         {"params": no_decay, "weight_decay": 0.0}], lr=1e-4, betas=(0.9, 0.98), eps=1e-6)
gen = torch.Generator().manual_seed(1)
ids = torch.randint(5, V, (B, T), generator=gen)
attn = torch.ones(B, T, dtype=torch.long)
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
        loss = step_model(input_ids=ids, attention_mask=attn, labels=labels).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss


times = []
for step in range(WARMUP + STEPS):
    t0 = time.perf_counter()
    loss = train_step()
    sync()
    if step >= WARMUP:
        times.append(time.perf_counter() - t0)
sec = sorted(times)[len(times) // 2]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(f"pytorch {torch.__version__} {MODE} transformers ModernBertForMaskedLM sdpa")
print(f"pytorch ms_per_step={sec * 1000:.1f} tokens_per_s={B * T / sec:.1f} peak_rss_mb={rss:.1f} loss={loss.item():.4f}")
