# attnlab-cli train --nproc-per-node on loopback: equivalence with one process, a killed rank,
# bad launches (real processes, the tiny tokenizer: 'deepbind').
attnlab_add_qtest(app test_cli_distributed LIBS Qt6::Core attnlab_core LABELS engine deepbind TIMEOUT 600)
add_dependencies(app_test_cli_distributed attnlab-cli)
# Two machines rehearsed in two network namespaces joined by a veth pair (--nnodes 2 over
# --gloo-interface): equal to one process, a killed node named, the run resumed. Skipped
# where namespaces cannot be made.
attnlab_add_qtest(app test_cli_two_machines LIBS Qt6::Core attnlab_core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_two_machines attnlab-cli)
# The same launch on a text corpus whose tokenizer the run trains: rank 0 alone prepares
# the data (rank 1 waits and opens its store), and the end equals one process's.
attnlab_add_qtest(app test_cli_distributed_data LIBS Qt6::Core attnlab_core LABELS deepbind TIMEOUT 300)
add_dependencies(app_test_cli_distributed_data attnlab-cli)
