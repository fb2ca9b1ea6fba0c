# The preset lookup (core/config/config_presets): folders, names, --config NAME.
attnlab_add_qtest(core test_config_presets LIBS attnlab_core_config)
