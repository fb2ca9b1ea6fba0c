# Fails when a source under SOURCE_DIRS includes a Qt header, or when a link list in
# LINK_FILES names a Qt library. Lists are '|'-separated (a ';' would split the -D).
# Errors name file:line and the include as written. Its sibling check_layer_direction.cmake
# checks that project includes go down the layers only.
#   cmake -DSOURCE_DIRS=a|b -DLINK_FILES=x|y -P check_layering.cmake
string(REPLACE "|" ";" _dirs "${SOURCE_DIRS}")
string(REPLACE "|" ";" _links "${LINK_FILES}")
set(_problems "")
include(${CMAKE_CURRENT_LIST_DIR}/line_of.cmake)

# Qt headers: <QString>, <QtCore/...>, <qglobal.h>, "qobject.h", and anything from Qt's own
# include folders; QCustomPlot too (it is Qt).
set(_qt_include_regex "^[ \t]*#[ \t]*include[ \t]*[<\"](Q[A-Z][A-Za-z]*|Qt[A-Za-z]*/[^>\"]*|q[a-z]+\\.h|qcustomplot\\.h)[>\"]")
foreach(_dir IN LISTS _dirs)
  if(NOT IS_DIRECTORY "${_dir}")
    message(FATAL_ERROR "layering check: source folder '${_dir}' does not exist")
  endif()
  file(GLOB_RECURSE _files "${_dir}/*.h" "${_dir}/*.hpp" "${_dir}/*.cpp" "${_dir}/*.cc" "${_dir}/*.cxx")
  list(SORT _files)
  foreach(_f IN LISTS _files)
    file(STRINGS "${_f}" _lines REGEX "#[ \t]*include")
    set(_search_from 0)
    foreach(_l IN LISTS _lines)
      if(_l MATCHES "${_qt_include_regex}")
        attnlab_line_of("${_f}" "${_l}" ${_search_from} _line _search_from)
        string(STRIP "${_l}" _written)
        string(APPEND _problems "\n  ${_f}:${_line}: ${_written}  (a Qt header)")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(_file IN LISTS _links)
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "layering check: link list '${_file}' does not exist (configure first)")
  endif()
  file(READ "${_file}" _content)
  if(_content MATCHES "(Qt[56]?::[A-Za-z]+|libQt[56][A-Za-z]*|QCustomPlot)")
    string(APPEND _problems "\n  ${_file}: links a Qt library (${CMAKE_MATCH_1}); full list: ${_content}")
  endif()
endforeach()

if(_problems)
  message(FATAL_ERROR "layering violation: core/ and analysis/ must not use Qt:${_problems}")
endif()
message(STATUS "layering check passed: no Qt in ${SOURCE_DIRS}")
