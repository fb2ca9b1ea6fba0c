# `attnlab-cli export-model` (issue 29): a tiny run exported and loaded by Hugging Face's
# libraries with ATTNLAB_HF_PYTHON (tokenizers; transformers where installed, else that part
# is skipped saying why: the CUDA line, label engine, has it); refusals and --force.
attnlab_add_qtest(app test_cli_export_model LIBS attnlab_core Qt6::Core LABELS engine deepbind TIMEOUT 600)
add_dependencies(app_test_cli_export_model attnlab-cli)

# The same for runs of ModernBERT's layout (issue 43): exported as ModernBertForMaskedLM and
# checked with transformers on the CUDA line (label engine), where it is installed.
attnlab_add_qtest(app test_cli_export_modernbert LIBS attnlab_core Qt6::Core LABELS engine deepbind TIMEOUT 600)
add_dependencies(app_test_cli_export_modernbert attnlab-cli)
