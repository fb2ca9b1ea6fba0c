# analysis/attention/query_key_map: AttentionViz's query-key normalisation and the joint PCA
# map, against constructed heads whose dot products and components are known.
attnlab_add_qtest(analysis test_query_key_map LIBS attnlab_analysis_attention)
