# The coreference probe's kept examples (the Probe tab's drill-down): recording, limits and
# the coref_examples.json writer/reader round trip.
attnlab_add_qtest(analysis test_coref_examples
  LIBS attnlab_analysis_report nlohmann_json::nlohmann_json)
