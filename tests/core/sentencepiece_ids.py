"""Prints the ids Python's sentencepiece gives for each line of a text file.

Used by test_tokenizer_with_torch to check that AttnLab's .model is a standard
SentencePiece model: usage: sentencepiece_ids.py MODEL TEXTFILE
"""
import sys

import sentencepiece as spm

processor = spm.SentencePieceProcessor(model_file=sys.argv[1])
with open(sys.argv[2], encoding="utf-8") as lines:
    for line in lines:
        print(" ".join(str(i) for i in processor.encode(line.rstrip("\n"))))
