# analysis/attention/head_matching: heads matched across runs (cross-run JSD, the Hungarian
# assignment, linear CKA) against brute force and formulas re-derived in the test.
attnlab_add_qtest(analysis test_head_matching LIBS attnlab_analysis_attention)
