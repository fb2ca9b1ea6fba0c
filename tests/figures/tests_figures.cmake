# The figure catalog and `attnlab-cli export`: trains two tiny runs (plain; ASA + squeeze +
# guidance), analyses and probes one, exports every figure in every format through the CLI
# and in-process. GUI build only ('deepbind': the CLI trains with the SentencePiece bridge).
attnlab_add_qtest(figures test_figures LIBS attnlab_figures GUI LABELS deepbind TIMEOUT 600)
if(TARGET figures_test_figures)
  add_dependencies(figures_test_figures attnlab-cli)
endif()

# The attention-health figures (figures/health_figures.h): a run trained with the health
# stream and one without; every health figure exported, its data compared with the run log
# read by h5py, the refusal of a log without health/ series.
attnlab_add_qtest(figures test_health_figures LIBS attnlab_figures GUI LABELS deepbind
                  TIMEOUT 300)
if(TARGET figures_test_health_figures)
  add_dependencies(figures_test_health_figures attnlab-cli)
endif()
