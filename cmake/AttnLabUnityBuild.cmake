# Unity builds for the libraries' LibTorch files. Every translation unit that includes LibTorch
# pays a fixed cost even with the precompiled header (8.5 s on the 2-core build machine for
# an otherwise empty file: loading the 630 MB header and GCC's processing of LibTorch's inline
# code), so a library's LibTorch files are compiled ATTNLAB_UNITY_BATCH at a time, as one
# translation unit. Files that use no LibTorch stay out (they compile with the precompiled Qt
# headers or with none), and so do executables (one or two files each). ATTNLAB_UNITY=OFF
# compiles every file alone, as an edit-compile loop on one file may prefer.
include_guard(GLOBAL)
include(AttnLabPrecompiledHeaders)

option(ATTNLAB_UNITY "Compile each library's LibTorch files in batches (unity build)" ON)
set(ATTNLAB_UNITY_BATCH 6 CACHE STRING "LibTorch files per unity translation unit")

function(_attnlab_unity_build_target target)
  _attnlab_split_torch_sources(${target} _torch_files _excluded)
  list(LENGTH _torch_files _count)
  if(_count LESS 2)
    return()
  endif()
  if(_excluded)
    set_source_files_properties(${_excluded} TARGET_DIRECTORY ${target}
                                PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                        UNITY_BUILD_BATCH_SIZE ${ATTNLAB_UNITY_BATCH})
endfunction()

# Call once, after every target is declared.
function(attnlab_unity_build_torch_libraries)
  if(NOT ATTNLAB_UNITY)
    return()
  endif()
  _attnlab_compiled_targets(_all)
  set(_count 0)
  foreach(_target IN LISTS _all)
    get_target_property(_type ${_target} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      continue()
    endif()
    _attnlab_links(${_target} "^attnlab_torch$" _uses)
    if(_uses)
      _attnlab_unity_build_target(${_target})
      get_target_property(_unity ${_target} UNITY_BUILD)
      if(_unity)
        math(EXPR _count "${_count} + 1")
      endif()
    endif()
  endforeach()
  message(STATUS "AttnLab: unity builds for ${_count} libraries (${ATTNLAB_UNITY_BATCH} LibTorch files per unit)")
endfunction()
