# The Health tab (issue 41) in the real main window on tiny runs trained by attnlab-cli: the
# heatmap against h5py's reading of the log, the step slider, a click through to the Inspect
# tab, alarms on a log edited by h5py, logs without health series.
attnlab_add_qtest(app test_health_panel LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_health_panel)
  add_dependencies(app_test_health_panel attnlab-cli)
endif()
