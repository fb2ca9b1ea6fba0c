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
# Data preparation watched in the window: a compressed JSON-lines corpus, the token store's
# progress in MB with a rate and an ETA in the status bar (a screenshot), then the run ends.
attnlab_add_qtest(app test_data_preparation_window LIBS attnlab_gui attnlab_core ZLIB::ZLIB GUI LABELS deepbind threads TIMEOUT 300)
# Faults mid-run: the app killed with SIGKILL (resumed by the CLI and the app), a full disk.
attnlab_add_qtest(app test_training_faults LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 900)
if(TARGET app_test_training_faults)
  add_dependencies(app_test_training_faults attnlab attnlab-cli)
endif()
# attnlab --help / --version without a display (parsed before QApplication exists).
attnlab_add_qtest(app test_gui_command_line LIBS Qt6::Core GUI)
if(TARGET app_test_gui_command_line)
  add_dependencies(app_test_gui_command_line attnlab)
  target_compile_definitions(app_test_gui_command_line PRIVATE
    ATTNLAB_PROJECT_VERSION="${PROJECT_VERSION}")
endif()
# A newcomer's first minutes: the empty window's offer, same-named runs, a fresh run name.
attnlab_add_qtest(app test_first_minutes LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 300)
if(TARGET app_test_first_minutes)
  add_dependencies(app_test_first_minutes attnlab-cli)
endif()
