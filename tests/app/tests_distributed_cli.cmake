# attnlab-cli train --nproc-per-node on loopback: equivalence with one process, a killed rank,
# bad launches (real processes, the tiny tokenizer: 'deepbind').
attnlab_add_qtest(app test_cli_distributed LIBS Qt6::Core attnlab_core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_distributed attnlab-cli)
