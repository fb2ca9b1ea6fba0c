# The golden test against PyTorch: the engine's logits, losses, gradients and 10 AdamW steps
# for the baseline and every attention variant torch expresses directly, compared with
# tests/core/golden_reference.py (python3 with torch, h5py, numpy). docs/golden-test.md.
attnlab_add_qtest(core test_golden_pytorch
  LIBS attnlab_core LABELS engine golden TIMEOUT 300)
