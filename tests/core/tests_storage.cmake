# Tests of the storage areas: HDF5 wrappers, the SWMR run log, checkpoint files.
attnlab_add_qtest(core test_hdf5_wrappers LIBS attnlab_core_hdf5)
attnlab_add_qtest(core test_run_log LIBS attnlab_core_runlog LABELS threads TIMEOUT 300)
attnlab_add_qtest(core test_checkpoint_store LIBS attnlab_core_checkpoint LABELS engine)
