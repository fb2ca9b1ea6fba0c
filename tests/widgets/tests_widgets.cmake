# Widget tests (offscreen), the widget gallery and the widget benchmark.
# Included from tests/CMakeLists.txt (per-area list); paths are relative to tests/.
foreach(_t IN ITEMS
    test_attention_heatmap
    test_curve_decimation
    test_curve_plot
    test_violin_grid
    test_head_grid
    test_layer_series_plot
    test_probe_matrix_plot
    test_comparison_plot
    test_theme)
  attnlab_add_qtest(widgets ${_t} LIBS attnlab_widgets)
endforeach()

# The gallery: every widget rendered with generated data, for docs/widgets.md.
add_executable(attnlab-widget-gallery widgets/gallery_main.cpp)
target_link_libraries(attnlab-widget-gallery PRIVATE attnlab_widgets)
target_include_directories(attnlab-widget-gallery PRIVATE ${PROJECT_SOURCE_DIR})
target_compile_definitions(attnlab-widget-gallery PRIVATE ATTNLAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
attnlab_warnings(attnlab-widget-gallery)

# The widget benchmark (built, not run by CTest): QT_QPA_PLATFORM=offscreen bench_widgets
add_executable(bench_widgets widgets/bench_widgets.cpp)
target_link_libraries(bench_widgets PRIVATE attnlab_widgets)
target_include_directories(bench_widgets PRIVATE ${PROJECT_SOURCE_DIR})
attnlab_warnings(bench_widgets)
