# Tests of core/objectives: attention-guidance patterns, loss and schedule; ASA KL, mask
# penalty and masking proportion.
attnlab_add_qtest(core test_objectives LIBS attnlab_core_objectives LABELS engine)
