# attnlab-cli analyze and probe coref end to end (trains a tiny run: 'deepbind').
attnlab_add_qtest(app test_cli_analyze LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_analyze attnlab-cli)
