# Fails when a function under SOURCE_DIRS (folders of ROOT, '|'-separated) is longer than
# MAX_LINES lines (80), or when a file's braces cannot be read; a declarative table (one
# entry per key, rule or figure) may be longer when a comment containing "Declarative table"
# precedes it. Errors name file:line, the function and its length. The parser is
# check_function_length.py (comments, literals, lambdas, classes and namespaces; issue 40).
#   cmake -DROOT=<tree> [-DSOURCE_DIRS=core|analysis|app] [-DMAX_LINES=80] -P check_function_length.cmake
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED ROOT)
  message(FATAL_ERROR "function length check: pass -DROOT=<source tree>")
endif()
if(NOT DEFINED SOURCE_DIRS)
  set(SOURCE_DIRS "core|analysis|app")
endif()
if(NOT DEFINED MAX_LINES)
  set(MAX_LINES 80)
endif()
string(REPLACE "|" ";" _dirs "${SOURCE_DIRS}")
# The system Python: the script needs nothing beyond the standard library.
if(EXISTS /usr/bin/python3)
  set(_python /usr/bin/python3)
else()
  find_program(_python NAMES python3 REQUIRED)
endif()
execute_process(
  COMMAND ${_python} ${CMAKE_CURRENT_LIST_DIR}/check_function_length.py --root ${ROOT}
          --max ${MAX_LINES} ${_dirs}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${_out}${_err}")
endif()
message(STATUS "${_out}")
