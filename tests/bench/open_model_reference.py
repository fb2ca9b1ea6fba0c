"""What a researcher would use instead of bench_open_model's paths: transformers' AutoTokenizer
and AutoModelForMaskedLM on the same folder (open + first forward with attentions), and the
`tokenizers` library over the same glosses, one thread and its default pool.

    open_model_reference.py FOLDER GLOSSES REPEATS
"""
import os
import sys
import time

folder, glosses_path, repeats = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = ("The quick brown fox jumps over the lazy dog because it wanted to see what lay beyond "
        "the river, where the old mill stood silent in the evening light.")

import torch  # noqa: E402
from transformers import AutoModelForMaskedLM, AutoTokenizer  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)
best = 1e9
for _ in range(repeats):
    start = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(**tok(text, return_tensors="pt"), output_attentions=True)
    best = min(best, time.perf_counter() - start)
print(f"transformers open + first forward with attentions: {best:.3f} s "
      f"({len(out.attentions)} layers)")

lines = open(glosses_path, encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
size = sum(len(line.encode("utf-8")) + 1 for line in lines)
from tokenizers import BertWordPieceTokenizer  # noqa: E402

wp = BertWordPieceTokenizer(os.path.join(folder, "vocab.txt"), lowercase=True)
for label, batch in (("one line at a time", False), ("encode_batch, default threads", True)):
    best = 1e9
    for _ in range(repeats):
        start = time.perf_counter()
        if batch:
            wp.encode_batch(lines, add_special_tokens=False)
        else:
            for line in lines:
                wp.encode(line, add_special_tokens=False)
        best = min(best, time.perf_counter() - start)
    print(f"tokenizers WordPiece ({label}): {size / 1e6 / best:.1f} MB/s")
