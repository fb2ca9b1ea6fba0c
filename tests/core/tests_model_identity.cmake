# Whether a checkpoint's model is its run's (core/config/model_identity).
attnlab_add_qtest(core test_model_identity LIBS attnlab_core_config)
