# Shared by the layering checks: where a reported line sits in its file.

# Line number of `text` (a whole line) in `file`, searching after byte `from`; sets
# <out_line> and <out_next> (where to search for the next occurrence).
function(attnlab_line_of file text from out_line out_next)
  file(READ "${file}" _content)
  string(SUBSTRING "${_content}" ${from} -1 _rest)
  string(FIND "${_rest}" "${text}" _pos)
  if(_pos LESS 0)
    set(${out_line} "?" PARENT_SCOPE)
    set(${out_next} ${from} PARENT_SCOPE)
    return()
  endif()
  math(EXPR _abs "${from} + ${_pos}")
  string(SUBSTRING "${_content}" 0 ${_abs} _before)
  string(REGEX MATCHALL "\n" _newlines "${_before}")
  list(LENGTH _newlines _n)
  math(EXPR _line "${_n} + 1")
  string(LENGTH "${text}" _len)
  math(EXPR _next "${_abs} + ${_len}")
  set(${out_line} ${_line} PARENT_SCOPE)
  set(${out_next} ${_next} PARENT_SCOPE)
endfunction()
