# ScatterPlot's hover (the point under the mouse, its tooltip) and HeadGrid's context menu
# request for a head (and the app's plot menu stepping aside there).
attnlab_add_qtest(widgets test_plot_hover_and_menus LIBS attnlab_widgets)
