# The desktop app's views (panels) with real widgets, fed by hand-built RunSessions.
# Included from tests/CMakeLists.txt (per-area list); paths are relative to tests/.
attnlab_add_qtest(app test_curves_panel LIBS attnlab_gui GUI)
attnlab_add_qtest(app test_attention_panel LIBS attnlab_gui GUI)
attnlab_add_qtest(app test_variants_panel LIBS attnlab_gui GUI)
