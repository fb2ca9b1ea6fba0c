attnlab_add_qtest(core test_model LIBS attnlab_core_model)
# The fused attention path (LibTorch 2.x) against the explicit one, every mechanism.
attnlab_add_qtest(core test_fused_attention LIBS attnlab_core_model)
