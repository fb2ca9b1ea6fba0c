#!/usr/bin/env python3
"""Reference ids from Hugging Face's `tokenizers` for core_test_hf_tokenizers.

Usage: hf_tokenizer_reference.py GLOSSES HARD_CASES OUT_DIR [XLMR_FOLDER]

Trains, with the real `tokenizers` library, on the WordNet glosses (one per line):
  bert-uncased  WordPiece, BertNormalizer(lowercase, strip accents), ~3000 tokens
  bert-cased    WordPiece, lowercase and strip_accents off, ~3000 tokens
  roberta       byte-level BPE as RoBERTa's (<s> <pad> </s> <unk> <mask>, <mask> lstrip), ~3000
Each is saved twice: OUT_DIR/<name> (tokenizer.json, the vocab files and the config files as
transformers' save_pretrained writes them) and OUT_DIR/<name>-vocab (the same without
tokenizer.json). Then the ids `tokenizers` gives (no special tokens added) for every line:
OUT_DIR/<name>.glosses.ids (bert-uncased and roberta) and OUT_DIR/<name>.hard.ids, one line of
space-separated ids per input line. With XLMR_FOLDER (tests/fixtures/hf-xlmr-wordnet, whose
tokenizer.json transformers made from its SentencePiece model), the ids its tokenizer.json
gives: OUT_DIR/xlmr.glosses.ids and OUT_DIR/xlmr.hard.ids. OUT_DIR/hard.txt holds the hard cases with their \\u{XXXX}
escapes expanded (lines starting with "#" and empty lines dropped), '\\n'-separated.
"""
import json
import os
import re
import shutil
import sys

from tokenizers import AddedToken, Tokenizer
from tokenizers.implementations import BertWordPieceTokenizer, ByteLevelBPETokenizer

VOCAB_SIZE = 3000
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.decode("utf-8") for line in lines]


def hard_cases(path):
    out = []
    for line in read_lines(path):
        if not line or line.startswith("#"):
            continue
        out.append(re.sub(r"\\u\{([0-9A-Fa-f]+)\}", lambda m: chr(int(m.group(1), 16)), line))
    return out


def write_ids(path, encodings):
    with open(path, "w", encoding="ascii") as f:
        for e in encodings:
            f.write(" ".join(map(str, e.ids)) + "\n")


def save_with_transformers(tok, folder, kind, lowercase):
    """save_pretrained through transformers when it is importable; False otherwise."""
    try:
        if kind == "bert":
            from transformers import BertTokenizerFast as Fast
        else:
            from transformers import RobertaTokenizerFast as Fast
        from transformers import PreTrainedTokenizerFast
    except ImportError:
        return False
    if kind == "bert":
        specials = dict(unk_token="[UNK]", sep_token="[SEP]", pad_token="[PAD]",
                        cls_token="[CLS]", mask_token="[MASK]")
    else:
        specials = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>", sep_token="</s>",
                        cls_token="<s>", pad_token="<pad>",
                        mask_token=AddedToken("<mask>", lstrip=True, rstrip=False))
    try:
        fast = Fast(tokenizer_object=tok, **specials)
    except Exception:  # an older or newer signature: the generic class
        fast = PreTrainedTokenizerFast(tokenizer_object=tok, **specials)
    fast.save_pretrained(folder)
    if kind == "bert":
        # transformers 5 writes its class default (do_lower_case true) whatever the tokenizer
        # object does; the folder must say what `tok` does, as the ids below are tok's.
        path = os.path.join(folder, "tokenizer_config.json")
        with open(path) as f:
            config = json.load(f)
        config["do_lower_case"] = lowercase
        config["strip_accents"] = None
        with open(path, "w") as f:
            json.dump(config, f, indent=2)
    return True


def write_configs(folder, kind, lowercase):
    """The config files save_pretrained writes, for when transformers is absent."""
    if kind == "bert":
        specials = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
                    "cls_token": "[CLS]", "mask_token": "[MASK]"}
        config = dict(specials, do_lower_case=lowercase, strip_accents=None,
                      tokenize_chinese_chars=True, tokenizer_class="BertTokenizer")
    else:
        specials = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
                    "sep_token": "</s>", "cls_token": "<s>", "pad_token": "<pad>",
                    "mask_token": {"content": "<mask>", "lstrip": True, "rstrip": False,
                                   "normalized": False, "single_word": False}}
        config = dict(specials, add_prefix_space=False, tokenizer_class="RobertaTokenizer")
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(folder, "special_tokens_map.json"), "w") as f:
        json.dump(specials, f, indent=2)


def save(tok, out_dir, name, kind, lowercase):
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    inner = tok._tokenizer
    if not save_with_transformers(inner, folder, kind, lowercase):
        inner.save(os.path.join(folder, "tokenizer.json"))
        write_configs(folder, kind, lowercase)
    # The vocab files (WordPiece: vocab.txt; BPE: vocab.json, merges.txt) whatever was written.
    inner.model.save(folder)
    vocab_only = folder + "-vocab"
    shutil.rmtree(vocab_only, ignore_errors=True)
    shutil.copytree(folder, vocab_only)
    os.remove(os.path.join(vocab_only, "tokenizer.json"))
    return inner


def train_wordpiece(glosses, lowercase):
    tok = BertWordPieceTokenizer(lowercase=lowercase, strip_accents=lowercase)
    tok.train_from_iterator(glosses, vocab_size=VOCAB_SIZE, special_tokens=BERT_SPECIALS,
                            show_progress=False)
    return tok


def train_bpe(glosses):
    tok = ByteLevelBPETokenizer(add_prefix_space=False)
    tok.train_from_iterator(glosses, vocab_size=VOCAB_SIZE, special_tokens=ROBERTA_SPECIALS,
                            show_progress=False)
    tok._tokenizer.add_special_tokens([AddedToken("<mask>", lstrip=True, rstrip=False)])
    return tok


def main():
    glosses_path, hard_path, out_dir = sys.argv[1:4]
    glosses = read_lines(glosses_path)
    hard = hard_cases(hard_path)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "hard.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in hard))
    jobs = [("bert-uncased", "bert", True, lambda: train_wordpiece(glosses, True)),
            ("bert-cased", "bert", False, lambda: train_wordpiece(glosses, False)),
            ("roberta", "roberta", False, lambda: train_bpe(glosses))]
    for name, kind, lowercase, train in jobs:
        inner = save(train(), out_dir, name, kind, lowercase)
        write_ids(os.path.join(out_dir, name + ".hard.ids"),
                  inner.encode_batch(hard, add_special_tokens=False))
        if name != "bert-cased":
            write_ids(os.path.join(out_dir, name + ".glosses.ids"),
                      inner.encode_batch(glosses, add_special_tokens=False))
    if len(sys.argv) > 4:
        xlmr = Tokenizer.from_file(os.path.join(sys.argv[4], "tokenizer.json"))
        for lines, what in ((glosses, "glosses"), (hard, "hard")):
            write_ids(os.path.join(out_dir, "xlmr." + what + ".ids"),
                      xlmr.encode_batch(lines, add_special_tokens=False))
    print("hf_tokenizer_reference: %d glosses, %d hard cases, in %s" %
          (len(glosses), len(hard), out_dir))


if __name__ == "__main__":
    main()
