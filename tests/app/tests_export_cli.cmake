# `attnlab-cli export` exists in every build: a GUI build renders, a headless build says why
# it cannot. Runs the CLI only (no training), so it is cheap in both configurations.
attnlab_add_qtest(app test_cli_export LIBS Qt6::Core)
add_dependencies(app_test_cli_export attnlab-cli)
if(ATTNLAB_GUI)
  target_compile_definitions(app_test_cli_export PRIVATE ATTNLAB_EXPECT_FIGURES=1)
else()
  target_compile_definitions(app_test_cli_export PRIVATE ATTNLAB_EXPECT_FIGURES=0)
endif()
