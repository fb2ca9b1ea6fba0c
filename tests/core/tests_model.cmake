attnlab_add_qtest(core test_model LIBS attnlab_core_model LABELS engine)
# The fused attention path (LibTorch 2.x) against the explicit one, every mechanism.
attnlab_add_qtest(core test_fused_attention LIBS attnlab_core_model LABELS engine)
# Norm-based attention and the logit lens against the papers' formulas written out in the tests.
attnlab_add_qtest(core test_attention_norms LIBS attnlab_core_inspect)
attnlab_add_qtest(core test_logit_lens LIBS attnlab_core_inspect)
# Head gates (Michel et al. 2019): bitwise identity at 1, gradients against finite
# differences, a masked head against its zeroed output columns.
attnlab_add_qtest(core test_gated_loss LIBS attnlab_core_inspect LABELS engine)
# Hugging Face safetensors files (issue 29): a file the real library wrote, broken ones refused.
attnlab_add_qtest(core test_safetensors_file LIBS attnlab_core_pretrained)
# A Hugging Face BertForMaskedLM read and run: attention, hidden states and logits against
# transformers' own outputs (tests/fixtures/hf-bert); a BertModel without head inspected.
attnlab_add_qtest(core test_hf_bert_import LIBS attnlab_core_pretrained attnlab_core_inspect LABELS engine)
# Named hook points (issue 40): names and shapes, each capture against its definition,
# activation patching, replacement order, the fused kernel kept when nothing inside is asked.
attnlab_add_qtest(core test_hook_points LIBS attnlab_core_model LABELS engine)
# Attention health (issue 41): sinks, entropy, S_max, massive activations and rank collapse on
# hand-made maps with known answers; power iteration against the SVD.
attnlab_add_qtest(core test_attention_health LIBS attnlab_core_health LABELS engine)
# The spectral norm under rotary positions (issue 43): the largest over offsets against the
# D x D form built from RoPE's formula, and that form against the engine's rotary scores.
attnlab_add_qtest(core test_rotary_spectral LIBS attnlab_core_health LABELS engine)
# ModernBERT's parts (issue 43): RoPE against the pairwise rotation, the window's band exactly
# zero in both attention paths, GeGLU and bias-free parameters, the rules that refuse.
attnlab_add_qtest(core test_modern_layout LIBS attnlab_core_model attnlab_core_config LABELS engine)
# A Hugging Face ModernBERT folder (issue 43): attention, hidden states and logits against
# transformers' on a padded batch longer than the window (tests/fixtures/hf-modernbert), the
# tokenizer's ids against AutoTokenizer's, bad folders refused by field.
attnlab_add_qtest(core test_hf_modernbert_import LIBS attnlab_core_pretrained attnlab_core LABELS engine)
