# Tests of core/data: corpus sources, the token store (loads the SentencePiece bridge,
# hence 'deepbind') and MLM batches.
attnlab_add_qtest(core test_corpus LIBS attnlab_core_data)
attnlab_add_qtest(core test_token_store LIBS attnlab_core_data LABELS deepbind)
attnlab_add_qtest(core test_mlm_batches LIBS attnlab_core_data)
