# Fails when a source under SOURCE_DIRS includes a Qt header, or when a link list in
# LINK_FILES names a Qt library. Lists are '|'-separated (a ';' would split the -D).
#   cmake -DSOURCE_DIRS=a|b -DLINK_FILES=x|y -P check_layering.cmake
string(REPLACE "|" ";" _dirs "${SOURCE_DIRS}")
string(REPLACE "|" ";" _links "${LINK_FILES}")
set(_problems "")

# Qt headers: <QString>, <QtCore/...>, <qglobal.h>, "qobject.h", and anything from Qt's own
# include folders; QCustomPlot too (it is Qt).
set(_qt_include_regex "^[ \t]*#[ \t]*include[ \t]*[<\"](Q[A-Z][A-Za-z]*|Qt[A-Za-z]*/[^>\"]*|q[a-z]+\\.h|qcustomplot\\.h)[>\"]")
foreach(_dir IN LISTS _dirs)
  if(NOT IS_DIRECTORY "${_dir}")
    message(FATAL_ERROR "layering check: source folder '${_dir}' does not exist")
  endif()
  file(GLOB_RECURSE _files "${_dir}/*.h" "${_dir}/*.hpp" "${_dir}/*.cpp" "${_dir}/*.cc" "${_dir}/*.cxx")
  foreach(_f IN LISTS _files)
    file(STRINGS "${_f}" _lines REGEX "#[ \t]*include")
    foreach(_l IN LISTS _lines)
      if(_l MATCHES "${_qt_include_regex}")
        string(APPEND _problems "\n  ${_f}: includes a Qt header: ${_l}")
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
