# The Query-key map view: opened from the Inspect tab's head grid in the MainWindow on a tiny
# run trained by attnlab-cli; colourings, hover, export, cancel and close while computing.
attnlab_add_qtest(app test_query_key_map_view LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 600)
if(TARGET app_test_query_key_map_view)
  add_dependencies(app_test_query_key_map_view attnlab-cli)
endif()
