# Fails when a project include goes up the layers. The only direction is
#   app -> widgets -> analysis -> core
# so core/ includes only core/, analysis/ also core/, widgets/ also analysis/, app/ anything;
# and no layer includes tests/ (test code is not part of the product).
#   cmake -DROOT=<tree with core/ analysis/ widgets/ app/> -P check_layer_direction.cmake
# Every include is judged by its first folder: "analysis/x.h" and <analysis/x.h> both belong
# to analysis; a relative include ("../../app/x.h") is resolved against the including file
# first. Errors name file:line (relative to ROOT) and the include as written.
cmake_minimum_required(VERSION 3.25)  # policies for -P mode (IN_LIST)

if(NOT IS_DIRECTORY "${ROOT}")
  message(FATAL_ERROR "layer direction check: ROOT '${ROOT}' is not a folder")
endif()
get_filename_component(_root "${ROOT}" ABSOLUTE)

set(_layers core analysis widgets app)  # bottom to top
set(_include_regex "^[ \t]*#[ \t]*include[ \t]*([<\"])([^>\"]+)[>\"]")

include(${CMAKE_CURRENT_LIST_DIR}/line_of.cmake)

set(_problems "")
set(_checked 0)
set(_rank 0)
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

if(_checked EQUAL 0)
  message(FATAL_ERROR "layer direction check: no sources under ${_root}/{core,analysis,widgets,app}")
endif()
if(_problems)
  message(FATAL_ERROR "layering violation: includes must go down the layers only "
                      "(app -> widgets -> analysis -> core; never tests/):${_problems}")
endif()
message(STATUS "layer direction check passed: ${_checked} files under ${_root}")
