# attnlab-cli train killed with SIGKILL (at a checkpoint's edges and at random moments) and
# resumed equals an uninterrupted run: checkpoint bitwise, run log row for row (h5py).
attnlab_add_qtest(app test_cli_crash_resume LIBS Qt6::Core attnlab_core LABELS engine deepbind TIMEOUT 600)
add_dependencies(app_test_cli_crash_resume attnlab-cli)
if(TARGET attnlab)
  add_dependencies(app_test_cli_crash_resume attnlab)
endif()
# attnlab-cli train killed with SIGKILL while it encodes the token store (a 16 MB text
# corpus in 0.05 MB shards): the restart keeps the finished shards and ends with the store
# an uninterrupted run writes, byte for byte.
attnlab_add_qtest(app test_cli_data_resume LIBS Qt6::Core attnlab_core LABELS deepbind TIMEOUT 300)
add_dependencies(app_test_cli_data_resume attnlab-cli)
