# attnlab-cli copied into a private prefix as `cmake --install` lays it out: --version, preset
# names for --config, the bridge lookup (loads the bridge: 'deepbind').
attnlab_add_qtest(app test_cli_install_layout LIBS Qt6::Core LABELS deepbind)
add_dependencies(app_test_cli_install_layout attnlab-cli)
target_compile_definitions(app_test_cli_install_layout PRIVATE
  ATTNLAB_EXPECTED_VERSION="${PROJECT_VERSION}"
  ATTNLAB_PLUGIN_SUBDIR="${ATTNLAB_PLUGIN_SUBDIR}")
