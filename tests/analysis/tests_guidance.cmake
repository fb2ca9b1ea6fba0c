# analysis/attention/guidance_patterns: the guidance target matrices the Inspect tab overlays.
attnlab_add_qtest(analysis test_guidance_patterns LIBS attnlab_analysis_attention)
