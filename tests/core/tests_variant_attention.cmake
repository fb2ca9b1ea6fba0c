# Tests of how the attention variants are wired into the attention block and the model.
attnlab_add_qtest(core test_variant_attention LIBS attnlab_core_model LABELS engine)
