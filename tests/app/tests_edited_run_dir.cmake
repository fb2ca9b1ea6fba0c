# A run directory edited between sessions (shapes, tokenizer, token store, checkpoint):
# refused or repaired with a message, never a silent mix (real processes: 'deepbind').
attnlab_add_qtest(app test_cli_edited_run_dir LIBS Qt6::Core attnlab_core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_edited_run_dir attnlab-cli)
