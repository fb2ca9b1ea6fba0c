# The Probe tab's options and drill-down on a real run (trains a tiny run with attnlab-cli).
attnlab_add_qtest(app test_probe_panel LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_probe_panel)
  add_dependencies(app_test_probe_panel attnlab-cli)
endif()
