# Data-parallel steps over c10d Gloo on loopback (two ranks as threads, a FileStore), in
# double precision against one process; gradient averaging by hand; the launch environment.
attnlab_add_qtest(core test_distributed_step LIBS attnlab_core_train attnlab_core_distributed LABELS engine threads TIMEOUT 300)
