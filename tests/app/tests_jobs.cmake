# The app's one job runner and its bar (issue 40): typed results on the GUI thread, Cancel,
# failures, joining on destruction.
attnlab_add_qtest(app test_job_runner LIBS attnlab_gui GUI LABELS threads)
# Each command written once: the app's Compare heads and Query-key map give what attnlab-cli
# compare --heads and qk-map write (two tiny runs trained by attnlab-cli).
attnlab_add_qtest(app test_jobs_cli_parity LIBS attnlab_gui attnlab_core GUI LABELS deepbind threads TIMEOUT 900)
if(TARGET app_test_jobs_cli_parity)
  add_dependencies(app_test_jobs_cli_parity attnlab-cli)
endif()
