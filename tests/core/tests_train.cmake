attnlab_add_qtest(core test_adamw LIBS attnlab_core_train)
# Trains tiny models end to end (tokenizer included, hence 'deepbind').
attnlab_add_qtest(core test_trainer LIBS attnlab_core_train attnlab_core_config LABELS deepbind TIMEOUT 600)
