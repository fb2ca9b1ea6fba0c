# Export of a run to a Hugging Face folder (issue 29): read back by the import bitwise, the
# safetensors writer and the SentencePiece .model reader, refusals by config key. 'deepbind':
# it trains 50-piece tokenizers through the SentencePiece bridge.
attnlab_add_qtest(core test_hf_bert_export LIBS attnlab_core LABELS engine deepbind)
