# Fails when a project include goes up the layers. The only direction is
#   app -> figures -> widgets -> analysis -> core
# so core/ includes only core/, analysis/ also core/, widgets/ also analysis/, figures/ also
# widgets/, app/ anything; and no layer includes tests/ (test code is not part of the product).
#   cmake [-DROOT=<tree with core/ analysis/ widgets/ app/>] [-DLINK_FILES=a|b]
#         -P check_layer_direction.cmake
# Every include is judged by its first folder: "analysis/x.h" and <analysis/x.h> both belong
# to analysis; a relative include ("../../app/x.h") is resolved against the including file
# first. Errors name file:line (relative to ROOT) and the include as written.
# LINK_FILES ('|'-separated) are link lists written at configure time, one per target, named
# <target>_links.txt: the same rule holds for CMake's link edges (attnlab_core_* may link
# only attnlab_core_*, attnlab_analysis_* also those, attnlab_widgets* also analysis',
# attnlab_figures* also the widgets).
cmake_minimum_required(VERSION 3.25)  # policies for -P mode (IN_LIST)

if(NOT ROOT AND NOT LINK_FILES)
  message(FATAL_ERROR "layer direction check: give ROOT, LINK_FILES or both")
endif()
if(ROOT AND NOT IS_DIRECTORY "${ROOT}")
  message(FATAL_ERROR "layer direction check: ROOT '${ROOT}' is not a folder")
endif()

set(_layers core analysis widgets figures app)  # bottom to top
set(_include_regex "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")

include(${CMAKE_CURRENT_LIST_DIR}/line_of.cmake)

set(_problems "")
set(_checked 0)
set(_rank 0)
if(ROOT)
  get_filename_component(_root "${ROOT}" ABSOLUTE)
else()
  set(_layers "")  # links only
endif()
foreach(_layer IN LISTS _layers)
  # Folders this layer must not include: every layer above it, and tests/.
  list(SUBLIST _layers ${_rank} -1 _above)
  list(REMOVE_AT _above 0)
  set(_forbidden ${_above} tests)
  math(EXPR _rank "${_rank} + 1")
  if(NOT IS_DIRECTORY "${_root}/${_layer}")
    continue()
  endif()
  file(GLOB_RECURSE _files
    "${_root}/${_layer}/*.h" "${_root}/${_layer}/*.hpp" "${_root}/${_layer}/*.cpp"
    "${_root}/${_layer}/*.cc" "${_root}/${_layer}/*.cxx" "${_root}/${_layer}/*.inl")
  list(SORT _files)
  foreach(_f IN LISTS _files)
    math(EXPR _checked "${_checked} + 1")
    file(STRINGS "${_f}" _lines REGEX "^[ \t]*#[ \t]*include")
    set(_search_from 0)
    foreach(_l IN LISTS _lines)
      if(NOT _l MATCHES "${_include_regex}")
        continue()
      endif()
      set(_path "${CMAKE_MATCH_2}")
      set(_top "")
      if(_path MATCHES "(^|/)\\.\\.(/|$)")
        # Relative: where does it land?
        get_filename_component(_dir "${_f}" DIRECTORY)
        get_filename_component(_target "${_dir}/${_path}" ABSOLUTE)
        file(RELATIVE_PATH _rel "${_root}" "${_target}")
        if(_rel MATCHES "^([^/.][^/]*)/")
          set(_top "${CMAKE_MATCH_1}")
        endif()
      elseif(_path MATCHES "^([^/]+)/")
        set(_top "${CMAKE_MATCH_1}")
      endif()
      if(NOT _top OR NOT _top IN_LIST _forbidden)
        continue()
      endif()
      string(STRIP "${_l}" _written)
      attnlab_line_of("${_f}" "${_l}" ${_search_from} _line _search_from)
      file(RELATIVE_PATH _rel_file "${_root}" "${_f}")
      if(_top STREQUAL "tests")
        set(_why "no layer includes test code")
      else()
        set(_why "${_layer} is below ${_top}")
      endif()
      string(APPEND _problems "\n  ${_rel_file}:${_line}: ${_written}  (${_why})")
    endforeach()
  endforeach()
endforeach()

if(ROOT AND _checked EQUAL 0)
  message(FATAL_ERROR "layer direction check: no sources under ${_root}/{core,analysis,widgets,figures,app}")
endif()

# The layer of a target, by name; "" for targets outside the layers (attnlab_torch, Qt6::...).
function(_attnlab_target_layer name out)
  set(_layer "")
  if(name MATCHES "^attnlab_core($|_)")
    set(_layer core)
  elseif(name MATCHES "^attnlab_analysis($|_)")
    set(_layer analysis)
  elseif(name MATCHES "^attnlab_widgets($|_)")
    set(_layer widgets)
  elseif(name MATCHES "^attnlab_figures($|_)")
    set(_layer figures)
  elseif(name MATCHES "^(attnlab|attnlab-cli|attnlab_gui|attnlab_cli_[A-Za-z0-9_]+)$")
    set(_layer app)
  endif()
  set(${out} "${_layer}" PARENT_SCOPE)
endfunction()

string(REPLACE "|" ";" _link_files "${LINK_FILES}")
set(_targets_checked 0)
set(_all_layers core analysis widgets figures app)
foreach(_file IN LISTS _link_files)
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "layer direction check: link list '${_file}' does not exist (configure first)")
  endif()
  get_filename_component(_name "${_file}" NAME)
  string(REGEX REPLACE "_links\\.txt$" "" _target "${_name}")
  _attnlab_target_layer("${_target}" _layer)
  if(NOT _layer)
    continue()
  endif()
  math(EXPR _targets_checked "${_targets_checked} + 1")
  list(FIND _all_layers ${_layer} _rank)
  file(READ "${_file}" _content)
  string(REGEX MATCHALL "attnlab[A-Za-z0-9_-]*" _linked "${_content}")
  list(REMOVE_DUPLICATES _linked)
  foreach(_dep IN LISTS _linked)
    _attnlab_target_layer("${_dep}" _dep_layer)
    if(_dep_layer)
      list(FIND _all_layers ${_dep_layer} _dep_rank)
      if(_dep_rank GREATER _rank)
        string(APPEND _problems
          "\n  ${_target} links ${_dep}  (${_layer} is below ${_dep_layer}; ${_file})")
      endif()
    endif()
  endforeach()
endforeach()

if(_problems)
  message(FATAL_ERROR "layering violation: includes and links must go down the layers only "
                      "(app -> figures -> widgets -> analysis -> core; never tests/):${_problems}")
endif()
message(STATUS "layer direction check passed: ${_checked} files, ${_targets_checked} targets' links")
