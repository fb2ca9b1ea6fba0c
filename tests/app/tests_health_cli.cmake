# attnlab-cli health (issue 41: the offline attention-health report) and the run log's
# health/* series, both checked against numpy float64 by tests/app/health_check.py; trains a
# tiny run: 'deepbind'.
attnlab_add_qtest(app test_cli_health LIBS Qt6::Core LABELS deepbind TIMEOUT 900)
add_dependencies(app_test_cli_health attnlab-cli)
