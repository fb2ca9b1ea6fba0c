# `attnlab-cli export-model` (issue 29): a tiny run exported and loaded by Hugging Face's
# libraries with ATTNLAB_HF_PYTHON (tokenizers; transformers where installed, else that part
# is skipped saying why); refusals and --force.
attnlab_add_qtest(app test_cli_export_model LIBS attnlab_core Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_export_model attnlab-cli)
