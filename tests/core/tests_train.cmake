attnlab_add_qtest(core test_adamw LIBS attnlab_core_train LABELS engine)
# Trains tiny models end to end (tokenizer included, hence 'deepbind').
attnlab_add_qtest(core test_trainer LIBS attnlab_core_train attnlab_core_config LABELS engine deepbind threads TIMEOUT 600)
# Every attention variant end to end (tiny models; tokenizer, hence 'deepbind').
attnlab_add_qtest(core test_variant_training
  LIBS attnlab_core_train attnlab_core_config attnlab_core_inspect LABELS engine deepbind TIMEOUT 600)
# The run-directory lock (two processes never train one directory).
attnlab_add_qtest(core test_run_directory_lock LIBS attnlab_core_train)
# train.precision: plans, refusals, autocast scope, the float16 loss scale, a bf16 step.
attnlab_add_qtest(core test_precision LIBS attnlab_core_train attnlab_core_config LABELS engine)
