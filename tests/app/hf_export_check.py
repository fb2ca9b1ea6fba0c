"""Checks a folder written by `attnlab-cli export-model` with Hugging Face's own libraries.

    hf_export_check.py tokenizers   DIR REFERENCE_DIR
    hf_export_check.py transformers DIR REFERENCE_DIR [--perturb | --perturb-attention]

REFERENCE_DIR holds what AttnLab computed (tests/app/test_cli_export_model.cpp): lines.txt
(one text a line), ids.json (per line, AttnLab's ids: <s> pieces </s>, uncut) and
reference.safetensors ("input_ids" [B, T]: <s> pieces </s> cut to the model's length T, padded
with <pad>; "logits" [B, T, V] and "attentions.L" [B, H, T, T] float32; written by
tests/support/hf_export_reference.h). `tokenizers` needs only the tokenizers library:
Tokenizer.from_file(tokenizer.json) must give AttnLab's ids for every line. `transformers` needs transformers and torch >= 2:
AutoTokenizer's padded batch must equal AttnLab's ids, and AutoModelForMaskedLM's logits and
every layer's attention (eager) at the real tokens' rows must be within 1e-5 of AttnLab's;
--perturb-attention adds 1e-2 to one weight of layer 0's query projection first, which both
the logits and the attention checks must see (both are printed); --perturb adds 1e-3 to one weight first (the
negative control: the check must fail). Exit status 0: equal; 1: a mismatch (the largest
difference printed); 3: skipped, with the missing library named.
"""
import json
import os
import sys

TOLERANCE = 1e-5


def read_reference(ref):
    with open(os.path.join(ref, "lines.txt"), encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    with open(os.path.join(ref, "ids.json"), encoding="utf-8") as f:
        ids = json.load(f)
    assert len(lines) == len(ids), (len(lines), len(ids))
    return lines, ids


def check_tokenizers(folder, ref):
    try:
        from tokenizers import Tokenizer
    except ImportError as e:
        print(f"SKIP: the tokenizers library is not importable ({e})")
        return 3
    lines, ids = read_reference(ref)
    tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    wrong = 0
    for line, want in zip(lines, ids):
        got = tokenizer.encode(line).ids
        if got != want:
            wrong += 1
            if wrong <= 5:
                print(f"MISMATCH {line!r}: tokenizers {got}, AttnLab {want}")
    if wrong:
        print(f"tokenizers: {wrong} of {len(lines)} lines differ: MISMATCH")
        return 1
    print(f"ok: tokenizers gives AttnLab's ids for all {len(lines)} lines")
    return 0


def import_transformers():
    try:
        import torch
        import transformers  # noqa: F401
        from safetensors.torch import load_file  # noqa: F401
    except ImportError as e:
        return None, f"transformers, torch or safetensors is not importable ({e})"
    major = int(torch.__version__.split(".")[0])
    if major < 2:
        return None, f"torch {torch.__version__} is older than the 2.x transformers 5 needs"
    return torch, None


def check_transformers(folder, ref, perturb):
    torch, why = import_transformers()
    if torch is None:
        print(f"SKIP: {why}")
        return 3
    from safetensors.torch import load_file
    from transformers import AutoModelForMaskedLM, AutoTokenizer
    from transformers.utils import logging

    logging.set_verbosity_warning()
    lines, _ = read_reference(ref)
    expected = load_file(os.path.join(ref, "reference.safetensors"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    print(f"loaded {type(tokenizer).__name__} and {type(model).__name__}")
    if perturb == "attention":
        with torch.no_grad():
            name, weight = next((n, w) for n, w in model.named_parameters()
                                if ("query" in n or "Wqkv" in n) and w.dim() == 2)
            weight[0, 0] += 1e-2
            print(f"perturbed {name}[0, 0] by 1e-2")
    elif perturb:
        with torch.no_grad():
            model.get_input_embeddings().weight[5, 0] += 1e-3
    T = expected["input_ids"].shape[1]
    batch = tokenizer(lines, padding="max_length", truncation=True, max_length=T, return_tensors="pt")
    if not torch.equal(batch["input_ids"], expected["input_ids"]):
        rows = (batch["input_ids"] != expected["input_ids"]).any(1).nonzero().flatten().tolist()
        print(f"AutoTokenizer's ids differ from AttnLab's in rows {rows[:10]}: MISMATCH")
        return 1
    with torch.no_grad():
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                    output_attentions=True)
    real = batch["attention_mask"].bool()
    diff = (out.logits[real].double() - expected["logits"][real].double()).abs().max().item()
    print(f"largest logit difference at the {int(real.sum())} real tokens: {diff:.3g}")
    logits_agree = diff < TOLERANCE
    if not logits_agree:
        print("logits: MISMATCH")
    if not attentions_agree(out.attentions, expected, real):
        print("attention: MISMATCH")
        return 1
    if not logits_agree:
        return 1
    print(f"ok: transformers gives AttnLab's ids, logits and attention for all {len(lines)} lines")
    return 0


def attentions_agree(theirs, expected, real):
    """Every layer's attention at the real queries' rows (all keys) within TOLERANCE."""
    layers = sorted(int(k.split(".")[1]) for k in expected if k.startswith("attentions."))
    if len(layers) != len(theirs):
        print(f"{len(theirs)} attention layers from transformers, {len(layers)} from AttnLab")
        return False
    worst = 0.0
    for layer in layers:
        ours = expected[f"attentions.{layer}"].double().permute(0, 2, 1, 3)  # [B, T, H, T]
        other = theirs[layer].double().permute(0, 2, 1, 3)
        worst = max(worst, (ours[real] - other[real]).abs().max().item())
    print(f"largest attention difference over {len(layers)} layers at the real queries: {worst:.3g}")
    return worst < TOLERANCE


def main():
    part, folder, ref = sys.argv[1], sys.argv[2], sys.argv[3]
    if part == "tokenizers":
        return check_tokenizers(folder, ref)
    options = sys.argv[4:]
    perturb = "attention" if "--perturb-attention" in options else "--perturb" in options
    return check_transformers(folder, ref, perturb)


if __name__ == "__main__":
    sys.exit(main())
