# A pretrained model folder in the real main window beside a run trained here, and File >
# Export model (attnlab-cli export-model in a child process) opened back as a model.
attnlab_add_qtest(app test_model_folder_window LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_model_folder_window)
  add_dependencies(app_test_model_folder_window attnlab-cli)
endif()
