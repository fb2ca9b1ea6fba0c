# Compiler flags, ccache and sanitizer wiring shared by every target.

if(ATTNLAB_USE_CCACHE)
  find_program(ATTNLAB_CCACHE ccache)
  if(ATTNLAB_CCACHE)
    # Paths relative to the source tree (a clone in another folder, CI's, hits the same
    # entries), and the sloppiness ccache needs to cache compiles that use a precompiled
    # header (cmake/AttnLabPrecompiledHeaders.cmake) instead of passing them through.
    set(_attnlab_ccache ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
        CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
        ${ATTNLAB_CCACHE})
    set(CMAKE_C_COMPILER_LAUNCHER ${_attnlab_ccache})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_attnlab_ccache})
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
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter
    # A config choice (core/config/config_choices.h) that a switch does not handle must not
    # compile: a new enum value can never fall through to some default behaviour.
    -Werror=switch)
endfunction()

# BLAS threading. Debian's LibTorch runs its own kernels on OpenMP threads, which spin
# after each parallel region; the default (pthread) OpenBLAS runs GEMMs on a second
# thread pool that those spinning threads starve. With the OpenMP build of OpenBLAS both
# share one pool: measured 1.52 s -> 0.83 s per training step on 2 cores
# (docs/workflows.md, "Speed"). Executables find it through DT_RPATH (not RUNPATH: RPATH also applies to
# LibTorch's own dependency on libopenblas.so.0), so the system's BLAS choice is untouched.
if(NOT DEFINED ATTNLAB_BLAS_DIR)
  set(_attnlab_blas_dir "")
  foreach(_dir /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp /usr/lib/x86_64-linux-gnu/openblas-openmp)
    if(EXISTS "${_dir}/libopenblas.so.0" AND NOT _attnlab_blas_dir)
      set(_attnlab_blas_dir "${_dir}")
    endif()
  endforeach()
  set(ATTNLAB_BLAS_DIR "${_attnlab_blas_dir}" CACHE PATH
      "Folder with the OpenMP build of OpenBLAS to prefer at run time (empty = system default)")
endif()
if(ATTNLAB_BLAS_DIR)
  add_link_options(-Wl,--disable-new-dtags -Wl,-rpath,${ATTNLAB_BLAS_DIR})
  message(STATUS "AttnLab: preferring the OpenMP OpenBLAS in ${ATTNLAB_BLAS_DIR}")
else()
  message(WARNING "AttnLab: OpenMP OpenBLAS not found (install libopenblas0-openmp); training "
                  "will run about 1.5x slower because of thread contention")
endif()

# Release at -O2 (CMake's default is -O3), as Debian builds its packages: the engine's time is
# spent in LibTorch's kernels, and -O3 cost about 15% more compile time in the files that use
# LibTorch (tests/core/test_config.cpp: 20.2 s at -O3, 17.4 s at -O2 on the 2-core machine).
string(REPLACE "-O3" "-O2" CMAKE_CXX_FLAGS_RELEASE "${CMAKE_CXX_FLAGS_RELEASE}")
string(REPLACE "-O3" "-O2" CMAKE_C_FLAGS_RELEASE "${CMAKE_C_FLAGS_RELEASE}")
