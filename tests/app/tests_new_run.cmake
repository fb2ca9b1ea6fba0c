# File > New run: the schema-generated config form and the dialog around it (GUI build only).
attnlab_add_qtest(app test_config_form LIBS attnlab_gui attnlab_core GUI)
attnlab_add_qtest(app test_new_run_dialog LIBS attnlab_gui attnlab_core GUI)
