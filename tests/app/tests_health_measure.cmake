# The Health tab's own measurement (Measure health): a ModernBERT model folder and a run
# without health series measured from the real window, the cells against `attnlab-cli health`
# on the same text, a missing text file refused by name.
attnlab_add_qtest(app test_health_measure LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 600)
if(TARGET app_test_health_measure)
  add_dependencies(app_test_health_measure attnlab-cli)
endif()
