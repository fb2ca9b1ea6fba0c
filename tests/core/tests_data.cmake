# Tests of core/data: corpus sources, the token store (loads the SentencePiece bridge,
# hence 'deepbind') and MLM batches.
attnlab_add_qtest(core test_corpus LIBS attnlab_core_data)
# Writes its .gz, .zst and JSON-lines inputs with the libraries themselves.
attnlab_add_qtest(core test_corpus_formats LIBS attnlab_core_data ZLIB::ZLIB PkgConfig::ZSTD
                  nlohmann_json::nlohmann_json)
attnlab_add_qtest(core test_token_store LIBS attnlab_core_data LABELS deepbind)
attnlab_add_qtest(core test_mlm_batches LIBS attnlab_core_data)
