# Fails when a folder of app/gui includes one it must not (docs/app.md, "Code map"): the
# window (main_window, window_menus, view_tabs) is built from the tabs, the dialogs and the
# controllers, never the other way round, and the tabs (panels/), the New run dialog
# (new_run/) and the jobs (jobs/) do not include each other across those lines:
#   app/gui/panels/   not new_run/, not the window's files
#   app/gui/new_run/  not panels/, not the window's files
#   app/gui/jobs/     not panels/, not new_run/, not the window's files (the jobs are below
#                     every tab)
#   app/gui/*_controller.{h,cpp}  not panels/, not new_run/, not the window's files
#   any header of app/gui  not main_window.h or window_menus.h (only .cpp files build the
#                     window; the two headers must not need each other)
#   cmake -DROOT=<tree with app/gui> -P check_gui_folders.cmake
# Errors name file:line (relative to ROOT) and the include as written.
cmake_minimum_required(VERSION 3.25)

if(NOT ROOT OR NOT IS_DIRECTORY "${ROOT}/app/gui")
  message(FATAL_ERROR "gui folders check: ROOT '${ROOT}' has no app/gui")
endif()
get_filename_component(_root "${ROOT}" ABSOLUTE)
include(${CMAKE_CURRENT_LIST_DIR}/line_of.cmake)

set(_window "(app/gui/main_window|app/gui/window_menus|app/gui/view_tabs)\\.h")
set(_include_regex "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"]")

# The forbidden includes (a regex on the include as written) of a file, and why; "" when none.
function(_forbidden_for rel out_regex out_why)
  set(_regex "")
  set(_why "")
  if(rel MATCHES "^app/gui/panels/")
    set(_regex "^(app/gui/new_run/|${_window}$)")
    set(_why "the tabs do not include the New run dialog or the window")
  elseif(rel MATCHES "^app/gui/new_run/")
    set(_regex "^(app/gui/panels/|${_window}$)")
    set(_why "the New run dialog does not include the tabs or the window")
  elseif(rel MATCHES "^app/gui/jobs/")
    set(_regex "^(app/gui/panels/|app/gui/new_run/|${_window}$)")
    set(_why "the jobs are below the tabs, the dialogs and the window")
  elseif(rel MATCHES "^app/gui/[^/]*_controller\\.(h|cpp)$")
    set(_regex "^(app/gui/panels/|app/gui/new_run/|${_window}$)")
    set(_why "a controller is below the tabs, the dialogs and the window")
  endif()
  # Every rule above already forbids the window's files.
  if(NOT _regex AND rel MATCHES "^app/gui/.*\\.h$")
    set(_regex "^(app/gui/main_window\\.h|app/gui/window_menus\\.h)$")
    set(_why "a header does not need the window's headers")
  endif()
  set(${out_regex} "${_regex}" PARENT_SCOPE)
  set(${out_why} "${_why}" PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE _files "${_root}/app/gui/*.h" "${_root}/app/gui/*.cpp")
list(SORT _files)
set(_problems "")
set(_checked 0)
foreach(_f IN LISTS _files)
  file(RELATIVE_PATH _rel "${_root}" "${_f}")
  _forbidden_for("${_rel}" _regex _why)
  math(EXPR _checked "${_checked} + 1")
  if(NOT _regex)
    continue()
  endif()
  file(STRINGS "${_f}" _lines REGEX "^[ \t]*#[ \t]*include")
  set(_search_from 0)
  foreach(_l IN LISTS _lines)
    if(NOT _l MATCHES "${_include_regex}")
      continue()
    endif()
    set(_path "${CMAKE_MATCH_1}")
    if(NOT _path MATCHES "${_regex}")
      continue()
    endif()
    string(STRIP "${_l}" _written)
    attnlab_line_of("${_f}" "${_l}" ${_search_from} _line _search_from)
    string(APPEND _problems "\n  ${_rel}:${_line}: ${_written}  (${_why})")
  endforeach()
endforeach()

if(_checked EQUAL 0)
  message(FATAL_ERROR "gui folders check: no sources under ${_root}/app/gui")
endif()
if(_problems)
  message(FATAL_ERROR "layering violation inside app/gui (docs/app.md, Code map):${_problems}")
endif()
message(STATUS "gui folders check passed: ${_checked} files")
