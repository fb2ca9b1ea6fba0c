"""Checks `attnlab-cli inspect MODEL_DIR` against Hugging Face's own libraries:
  - `tokenizers`: the inspection's token ids are what the folder's tokenizer.json gives for the
    text, its post-processor's special tokens included (BERT's [CLS] ... [SEP], RoBERTa's
    <s> ... </s>: the layout is the tokenizer's, printed, not assumed);
  - transformers (torch >= 2): AutoModelForMaskedLM's attentions (output_attentions, eager) on
    those ids equal the inspection's /probabilities within 1e-5.
    model_folder_check.py MODEL_DIR INSPECTION.h5 TEXT
Exit 0: every available check passed (a line per check); 1: a mismatch (the largest
difference printed); 3: `tokenizers` itself is missing. A missing transformers prints
"skip: ..." and checks the ids only.
"""
import sys

import h5py
import numpy as np

folder, inspection, text = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    from tokenizers import Tokenizer
except ImportError as e:
    print(f"skip: the tokenizers library is not importable: {e}")
    sys.exit(3)

with h5py.File(inspection, "r") as f:
    ids = f["token_ids"][()].astype(np.int64)
    probabilities = f["probabilities"][()]
tokenizer = Tokenizer.from_file(f"{folder}/tokenizer.json")
encoding = tokenizer.encode(text)
expected = encoding.ids
if list(ids) != list(expected):
    print(f"ids differ:\n  attnlab      {list(ids)}\n  tokenizers   {expected}")
    sys.exit(1)
# The special tokens the post-processor put around the text's own (the text alone has none).
plain = len(tokenizer.encode(text, add_special_tokens=False).ids)
added = [t for t, special in zip(encoding.tokens, encoding.special_tokens_mask) if special]
layout = f"{added[0]} ... {added[-1]}" if added and plain < len(expected) else "no special tokens"
print(f"ids: {len(ids)} tokens equal tokenizers' ({layout})")

try:
    import torch
    from transformers import AutoModelForMaskedLM
    if int(torch.__version__.split(".")[0]) < 2:
        raise ImportError(f"torch {torch.__version__} is older than transformers needs")
except ImportError as e:
    print(f"skip: transformers with torch >= 2 is not importable here ({e}); ids only")
    sys.exit(0)

model = AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
with torch.no_grad():
    out = model(input_ids=torch.from_numpy(ids).unsqueeze(0), output_attentions=True)
theirs = torch.stack([a[0] for a in out.attentions]).numpy()
worst = float(np.abs(theirs - probabilities).max())
print(f"attention: largest difference to transformers {worst:.3g} over {theirs.shape}")
sys.exit(0 if worst <= 1e-5 else 1)
