# Data-parallel runs from the app: the New run dialog's Processes box, the launch of
# attnlab-cli train --nproc-per-node through the real main window, Stop, Resume, a failing
# rank, a taken master port (GUI build; real processes and the tiny tokenizer: 'deepbind').
attnlab_add_qtest(app test_distributed_run LIBS attnlab_gui attnlab_core GUI LABELS deepbind TIMEOUT 300)
if(TARGET app_test_distributed_run)
  add_dependencies(app_test_distributed_run attnlab-cli)
endif()
