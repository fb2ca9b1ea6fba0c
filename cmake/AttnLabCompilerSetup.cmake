# Compiler flags, ccache and sanitizer wiring shared by every target.

if(ATTNLAB_USE_CCACHE)
  find_program(ATTNLAB_CCACHE ccache)
  if(ATTNLAB_CCACHE)
    set(CMAKE_C_COMPILER_LAUNCHER ${ATTNLAB_CCACHE})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${ATTNLAB_CCACHE})
  endif()
endif()

set(ATTNLAB_SANITIZE "" CACHE STRING "Sanitizers to enable, e.g. 'address;undefined'")
if(ATTNLAB_SANITIZE)
  list(JOIN ATTNLAB_SANITIZE "," _attnlab_san)
  add_compile_options(-fsanitize=${_attnlab_san} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${_attnlab_san})
endif()

# Warnings for the project's own targets only (not for imported ones).
function(attnlab_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
endfunction()
