# Comparing runs and exporting (Compare tab, Figures menu, plot context menu, File > Export
# report) in the real main window, on two tiny runs made by attnlab-cli.
attnlab_add_qtest(app test_compare_and_export LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 900)
if(TARGET app_test_compare_and_export)
  add_dependencies(app_test_compare_and_export attnlab-cli)
endif()
