# attnlab-cli inspect's views (weights, rollout, norms, logit lens) on trained runs, against
# the model recomputed in numpy from the checkpoint (trains two tiny runs: 'deepbind').
attnlab_add_qtest(app test_cli_inspect_views LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_inspect_views attnlab-cli)
