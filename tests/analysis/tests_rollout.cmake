# analysis/attention/attention_rollout: rollout (Abnar & Zuidema 2020) against a numpy
# re-implementation from the paper (rollout_reference.py) and cases known by hand.
attnlab_add_qtest(analysis test_attention_rollout LIBS attnlab_analysis_attention)
# The corpus summaries beyond the weights (rollout, norms, logit lens, the lens's masking) on
# cases worked out by hand.
attnlab_add_qtest(analysis test_beyond_weights_summaries LIBS attnlab_analysis_attention)
