# Runs a layering check on a fixture that must be rejected. Passes only when the check fails
# AND one line of its output holds every piece of EXPECT (literal text, '|'-separated): the
# file:line and the offending include. A check that fails for another reason (a missing
# fixture, a script error) or names the wrong line fails this test.
#   cmake -DCHECK=<check script> -DEXPECT=<a|b> [-DROOT=..] [-DSOURCE_DIRS=..] [-DLINK_FILES=..]
#         -P expect_violation.cmake
cmake_minimum_required(VERSION 3.25)

set(_args "")
foreach(_var IN ITEMS ROOT SOURCE_DIRS LINK_FILES DIRS)
  if(DEFINED ${_var})
    list(APPEND _args "-D${_var}=${${_var}}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} ${_args} -P ${CHECK}
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "the check accepted a fixture it must reject:\n${_out}")
endif()

string(REPLACE "|" ";" _pieces "${EXPECT}")
string(REPLACE ";" "," _out_lines "${_out}")
string(REPLACE "\n" ";" _out_lines "${_out_lines}")
foreach(_line IN LISTS _out_lines)
  set(_all TRUE)
  foreach(_piece IN LISTS _pieces)
    string(FIND "${_line}" "${_piece}" _pos)
    if(_pos LESS 0)
      set(_all FALSE)
    endif()
  endforeach()
  if(_all)
    message(STATUS "rejected as expected: ${_line}")
    return()
  endif()
endforeach()
message(FATAL_ERROR "the check failed, but no line names all of '${EXPECT}':\n${_out}")
