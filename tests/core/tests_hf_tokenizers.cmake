# Hugging Face tokenizers (issue 29): WordPiece and byte-level BPE read from a folder give the
# ids the `tokenizers` library gives, on every WordNet gloss and the hard cases
# (tests/core/hf_tokenizer_reference.py, run with ATTNLAB_HF_PYTHON; skipped without it).
attnlab_add_qtest(core test_hf_tokenizers
  LIBS attnlab_core_pretrained attnlab_core_data LABELS pretrained TIMEOUT 600)
