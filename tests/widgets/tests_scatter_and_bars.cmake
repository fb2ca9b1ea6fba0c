# ScatterPlot's wrapped legend under theme changes, BarChart's values and labels.
attnlab_add_qtest(widgets test_scatter_and_bars LIBS attnlab_widgets)
