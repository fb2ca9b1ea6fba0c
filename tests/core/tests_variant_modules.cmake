# Tests of core/model/variants: the attention-variant building blocks.
attnlab_add_qtest(core test_variant_modules LIBS attnlab_core_model LABELS engine)
