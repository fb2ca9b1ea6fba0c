# analysis/attention: streaming distributions and attention statistics (no Qt in the library;
# the tests use Qt Test only).
attnlab_add_qtest(analysis test_streaming_distribution LIBS attnlab_analysis_attention)
attnlab_add_qtest(analysis test_attention_statistics LIBS attnlab_analysis_attention)
attnlab_add_qtest(analysis test_row_kernels LIBS attnlab_analysis_attention)
