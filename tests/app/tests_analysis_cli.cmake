# attnlab-cli analyze and probe coref end to end (trains a tiny run: 'deepbind').
attnlab_add_qtest(app test_cli_analyze LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_analyze attnlab-cli)
# attnlab-cli analyze's summaries beyond the weights against the model recomputed in numpy
# (tests/analysis/beyond_summaries_reference.py; trains a tiny run: 'deepbind').
attnlab_add_qtest(app test_cli_analyze_beyond LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_analyze_beyond attnlab-cli)
# attnlab-cli analyze --heads (importance, ablation, pruning) against the model recomputed in
# numpy with head gates (tests/app/heads_reference.py; trains a tiny run: 'deepbind').
attnlab_add_qtest(app test_cli_analyze_heads LIBS Qt6::Core attnlab_analysis_report LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_analyze_heads attnlab-cli)
