# attnlab-cli compare --heads (cross-run head JSD, Hungarian matching, linear CKA) and qk-map
# (the query-key map, checked against numpy by tests/app/qk_map_check.py); both train tiny
# runs: 'deepbind'.
attnlab_add_qtest(app test_cli_compare_heads LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_compare_heads attnlab-cli)
attnlab_add_qtest(app test_cli_qk_map LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_qk_map attnlab-cli)
# Named hook points from the command line (issue 40): inspect --hooks, --capture read back
# with h5py and recomputed in numpy float64.
attnlab_add_qtest(app test_cli_hooks LIBS Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_hooks attnlab-cli)
