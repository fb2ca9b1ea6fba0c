# A Hugging Face RoBERTa folder (byte-level BPE) used as a run (issue 29): attnlab-cli inspect /
# analyze / probe on MODEL_DIR (checked against tokenizers and, where installed, transformers
# with ATTNLAB_HF_PYTHON), model.init_from starting a run from it; squeeze-excitation, the
# learnable temperature, ASA and attention guidance on top of a pretrained BERT.
attnlab_add_qtest(app test_cli_roberta_folder LIBS attnlab_core Qt6::Core LABELS deepbind TIMEOUT 600)
add_dependencies(app_test_cli_roberta_folder attnlab-cli)
