# Analyses of a real tiny run end to end (trains a tokenizer and a model: 'deepbind').
attnlab_add_qtest(analysis test_run_analysis
  LIBS attnlab_analysis attnlab_core nlohmann_json::nlohmann_json LABELS deepbind threads TIMEOUT 600)
# The report writers on hand-built results (no engine run).
attnlab_add_qtest(analysis test_report_formats
  LIBS attnlab_analysis_report nlohmann_json::nlohmann_json)
# The report readers against the writers: every field round-trips, bad files are named.
attnlab_add_qtest(analysis test_report_readers
  LIBS attnlab_analysis_report nlohmann_json::nlohmann_json)
# analyzeRun's progress and cancellation, and real reports read back (trains a tiny run:
# 'deepbind').
attnlab_add_qtest(analysis test_analysis_control
  LIBS attnlab_analysis attnlab_core nlohmann_json::nlohmann_json LABELS deepbind threads TIMEOUT 600)
