# The attention-mechanism registry: descriptors, docs anchors, logged quantities end to end
# (trains a tiny model: tokenizer, hence 'deepbind').
attnlab_add_qtest(core test_mechanisms LIBS attnlab_core LABELS engine deepbind)
