# The Inspect tab side by side (two checkpoints, two runs) and with ASA's keep-mask, on real
# runs trained by attnlab-cli, against attnlab-cli inspect.
attnlab_add_qtest(app test_inspector_compare LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_inspector_compare)
  add_dependencies(app_test_inspector_compare attnlab-cli)
endif()
# The frames the Inspect tab keeps in memory (look-ups, budget, least recently used first).
attnlab_add_qtest(app test_inspection_cache LIBS attnlab_gui GUI LABELS threads)
# The Inspect tab's views (rollout, norms, scores) and its logit lens in the MainWindow,
# against attnlab-cli inspect --view and the numpy float64 reference.
attnlab_add_qtest(app test_inspector_views LIBS attnlab_gui attnlab_analysis attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_inspector_views)
  add_dependencies(app_test_inspector_views attnlab-cli)
endif()
# The Inspect tab on differential, gated and softmax1 models (untrained tiny checkpoints):
# the diverging map of signed weights, the output gate and the learned sink logits.
attnlab_add_qtest(app test_inspector_mechanisms LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
