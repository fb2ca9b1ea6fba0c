# The desktop app's views (panels) with real widgets, fed by hand-built RunSessions.
# Included from tests/CMakeLists.txt (per-area list); paths are relative to tests/.
attnlab_add_qtest(app test_curves_panel LIBS attnlab_gui GUI)
attnlab_add_qtest(app test_attention_panel LIBS attnlab_gui GUI)
attnlab_add_qtest(app test_variants_panel LIBS attnlab_gui GUI)
# What those three tabs share: the placeholder in the content's place, the grid of plots.
attnlab_add_qtest(app test_plot_grid LIBS attnlab_gui GUI)
# The report picker and the newest-wins loader the Analysis, Probe and Compare tabs share.
attnlab_add_qtest(app test_report_picker LIBS attnlab_gui GUI LABELS threads)
# The Analysis tab on a real report (a tiny run trained and analysed by attnlab-cli).
attnlab_add_qtest(app test_analysis_panel LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
if(TARGET app_test_analysis_panel)
  add_dependencies(app_test_analysis_panel attnlab-cli)
endif()
# The Inspect tab on a real run, against attnlab-cli inspect.
attnlab_add_qtest(app test_inspector_panel LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
if(TARGET app_test_inspector_panel)
  add_dependencies(app_test_inspector_panel attnlab-cli)
endif()
