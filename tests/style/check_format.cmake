# Runs clang-format in dry-run mode over the project's C++ sources; fails on any file
# that differs from the committed .clang-format style.
file(GLOB_RECURSE _sources
  "${ROOT}/core/*.h" "${ROOT}/core/*.cpp" "${ROOT}/analysis/*.h" "${ROOT}/analysis/*.cpp"
  "${ROOT}/widgets/*.h" "${ROOT}/widgets/*.cpp" "${ROOT}/app/*.h" "${ROOT}/app/*.cpp"
  "${ROOT}/tests/*.h" "${ROOT}/tests/*.cpp")
list(FILTER _sources EXCLUDE REGEX "/fixtures/")
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror --style=file ${_sources}
                RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "clang-format: these files are not formatted (run clang-format -i):\n${_err}")
endif()
list(LENGTH _sources _n)
message(STATUS "clang-format: ${_n} files formatted")
