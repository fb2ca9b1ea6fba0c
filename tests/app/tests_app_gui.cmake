# The desktop app's controllers and main window (GUI build only). They train tiny runs
# (tokenizer included, hence 'deepbind') and compare with attnlab-cli.
attnlab_add_qtest(app test_training_controller LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
attnlab_add_qtest(app test_opened_runs LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
attnlab_add_qtest(app test_main_window LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 900)
if(TARGET app_test_training_controller)
  add_dependencies(app_test_training_controller attnlab-cli)
  add_dependencies(app_test_opened_runs attnlab-cli)
  add_dependencies(app_test_main_window attnlab-cli)
endif()
# Faults mid-run: the app killed with SIGKILL (resumed by the CLI and the app), a full disk.
attnlab_add_qtest(app test_training_faults LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 900)
if(TARGET app_test_training_faults)
  add_dependencies(app_test_training_faults attnlab attnlab-cli)
endif()
