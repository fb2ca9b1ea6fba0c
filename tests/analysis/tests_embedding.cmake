# analysis/attention/head_embedding: classical MDS of the heads (Clark et al.'s head map).
attnlab_add_qtest(analysis test_head_embedding LIBS attnlab_analysis_attention)
