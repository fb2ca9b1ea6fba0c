# The inspector on the attention mechanisms: output gates recomputed from the checkpoint,
# softmax1's sink logits, differential attention's signed maps beside the analyses'
# distributions (untrained tiny models; the tokenizer: 'deepbind').
attnlab_add_qtest(core test_attention_inspector_mechanisms LIBS attnlab_core LABELS deepbind)
