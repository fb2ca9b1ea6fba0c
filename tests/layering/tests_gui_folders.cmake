# app/gui's own folders (issue 40): the tabs (panels/), the New run dialog (new_run/), the jobs
# (jobs/) and the controllers include neither each other across the lines
# check_gui_folders.cmake draws nor the window's files; no header needs main_window.h or
# window_menus.h. The real tree must pass, the clean fixture too, and each negative fixture
# must be rejected naming its file:line and include (expect_violation.cmake).
set(_gui_check ${CMAKE_CURRENT_LIST_DIR}/check_gui_folders.cmake)
set(_gui_fixtures ${CMAKE_CURRENT_LIST_DIR}/fixtures/gui_folders)
add_test(NAME layering_gui_folders
  COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -P ${_gui_check})
add_test(NAME layering_gui_folders_accept_clean_fixture
  COMMAND ${CMAKE_COMMAND} -DROOT=${_gui_fixtures}/clean -P ${_gui_check})
set(_gui_layering_tests layering_gui_folders layering_gui_folders_accept_clean_fixture)
foreach(_case IN ITEMS
    "panels_include_new_run|app/gui/panels/welcome_panel.cpp:3: |\"app/gui/new_run/new_run_dialog.h\""
    "panels_include_main_window|app/gui/panels/inspector_panel.cpp:3: |\"app/gui/main_window.h\""
    "panels_include_window_menus|app/gui/panels/runs_panel.h:3: |\"app/gui/window_menus.h\""
    "new_run_includes_panels|app/gui/new_run/new_run_dialog.cpp:3: |\"app/gui/panels/runs_panel.h\""
    "new_run_includes_main_window|app/gui/new_run/config_form.cpp:2: |\"app/gui/main_window.h\""
    "jobs_include_panels|app/gui/jobs/job_bar.cpp:3: |\"app/gui/panels/runs_panel.h\""
    "controller_includes_panels|app/gui/analysis_controller.h:3: |\"app/gui/panels/probe_request.h\""
    "header_includes_window_menus|app/gui/main_window.h:3: |\"app/gui/window_menus.h\"")
  string(FIND "${_case}" "|" _bar)
  string(SUBSTRING "${_case}" 0 ${_bar} _name)
  math(EXPR _bar "${_bar} + 1")
  string(SUBSTRING "${_case}" ${_bar} -1 _expect)
  add_test(NAME layering_gui_rejects_${_name}
    COMMAND ${CMAKE_COMMAND} -DCHECK=${_gui_check} "-DEXPECT=${_expect}"
            -DROOT=${_gui_fixtures}/${_name}
            -P ${CMAKE_CURRENT_LIST_DIR}/expect_violation.cmake)
  list(APPEND _gui_layering_tests layering_gui_rejects_${_name})
endforeach()
set_tests_properties(${_gui_layering_tests} PROPERTIES LABELS "layering")
