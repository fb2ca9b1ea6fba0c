# The fuzz harnesses' inputs replayed in the normal build (docs/hardening.md, "Fuzzing"): every
# seed (tests/fuzz/seeds/<harness>/) and every committed crash input
# (tests/fuzz/regressions/<harness>/) goes through the harness's own code, compiled here with
# the project's compiler and without libFuzzer, and must end in the reader's result or its
# documented error. The harness files define LLVMFuzzerTestOneInput; each is renamed here.
attnlab_add_qtest(analysis test_fuzz_regressions
  LIBS attnlab_core_config attnlab_core_data attnlab_core_runlog attnlab_core_checkpoint
       attnlab_analysis_coref attnlab_analysis_report attnlab_hdf5 attnlab_core_pretrained)
set(_attnlab_replayed
  fuzz_config_toml fuzz_config_json fuzz_config_set fuzz_corpus fuzz_token_store fuzz_conll
  fuzz_lin_reflexives fuzz_analysis_json fuzz_coref_json fuzz_coref_examples_json fuzz_run_log
  fuzz_checkpoint fuzz_safetensors)
foreach(_harness IN LISTS _attnlab_replayed)
  set(_source ${PROJECT_SOURCE_DIR}/tests/fuzz/${_harness}.cpp)
  target_sources(analysis_test_fuzz_regressions PRIVATE ${_source})
  set_source_files_properties(${_source} TARGET_DIRECTORY analysis_test_fuzz_regressions
    PROPERTIES COMPILE_DEFINITIONS "LLVMFuzzerTestOneInput=attnlab_replay_${_harness}")
endforeach()
target_compile_definitions(analysis_test_fuzz_regressions PRIVATE ATTNLAB_FUZZ_REPLAY)
