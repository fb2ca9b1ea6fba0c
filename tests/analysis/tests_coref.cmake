# Tests of analysis/coref: the data sources (synthetic reflexives, CoNLL-2012 reader) and the
# probe (word-level attention, antecedent scoring, baselines).
attnlab_add_qtest(analysis test_coref_data LIBS attnlab_analysis_coref)
attnlab_add_qtest(analysis test_coref_probe LIBS attnlab_analysis_coref)
