# Precompiled LibTorch headers. A translation unit that includes <torch/torch.h> spends
# about a third of its time parsing it (LibTorch 2.x more than 1.13); the rest, GCC's deferred
# processing of LibTorch's inline code, no precompiled header saves. It is compiled once and
# reused by every target that links LibTorch (directly or through another target), in the
# files that include it; GCC refuses a header precompiled with -fPIC in a -fPIE compile, so
# every such file compiles with -fPIC (Qt adds it anyway). GCC only: clang refuses a
# precompiled header when command-line macros differ, and the project's targets define their
# own (ATTNLAB_SOURCE_DIR, ...). GCC checks validity itself (-Winvalid-pch) and parses the
# header as usual when the precompiled one does not fit.
include_guard(GLOBAL)

if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_attnlab_pch_default ON)
else()
  set(_attnlab_pch_default OFF)
endif()
option(ATTNLAB_PCH "Precompile LibTorch's headers and reuse them in every target that uses LibTorch"
       ${_attnlab_pch_default})

# Sets `out` to TRUE when `target` links a target whose name matches `pattern`, directly or
# through the project's own targets (imported ones are matched by name, not walked).
function(_attnlab_links target pattern out)
  string(MAKE_C_IDENTIFIER "${target}_${pattern}" _key)
  get_property(_known GLOBAL PROPERTY _ATTNLAB_LINKS_${_key} SET)
  if(_known)
    get_property(_uses GLOBAL PROPERTY _ATTNLAB_LINKS_${_key})
    set(${out} ${_uses} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY _ATTNLAB_LINKS_${_key} FALSE)  # breaks link cycles
  set(_uses FALSE)
  if(target MATCHES "${pattern}")
    set(_uses TRUE)
  else()
    get_target_property(_type ${target} TYPE)
    set(_links "")
    if(NOT _type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(_direct ${target} LINK_LIBRARIES)
      if(_direct)
        list(APPEND _links ${_direct})
      endif()
    endif()
    get_target_property(_interface ${target} INTERFACE_LINK_LIBRARIES)
    if(_interface)
      list(APPEND _links ${_interface})
    endif()
    foreach(_link IN LISTS _links)
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" _link "${_link}")
      if(_link MATCHES "${pattern}")
        set(_uses TRUE)
        break()
      endif()
      if(TARGET ${_link})
        get_target_property(_imported ${_link} IMPORTED)
        if(NOT _imported)
          _attnlab_links(${_link} "${pattern}" _linked)
          if(_linked)
            set(_uses TRUE)
            break()
          endif()
        endif()
      endif()
    endforeach()
  endif()
  set_property(GLOBAL PROPERTY _ATTNLAB_LINKS_${_key} ${_uses})
  set(${out} ${_uses} PARENT_SCOPE)
endfunction()

# Sets `out` to TRUE when the C++ file `path` includes a LibTorch header (torch/, ATen/,
# c10/), itself or through the project's own headers. A file that does not would pay for
# loading the precompiled header (about 15 s of GCC's deferred processing of LibTorch's
# inline code on 2 cores) without saving any parsing.
function(_attnlab_file_uses_torch path out)
  get_property(_known GLOBAL PROPERTY "_ATTNLAB_TORCH_FILE_${path}" SET)
  if(_known)
    get_property(_uses GLOBAL PROPERTY "_ATTNLAB_TORCH_FILE_${path}")
    set(${out} ${_uses} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY "_ATTNLAB_TORCH_FILE_${path}" FALSE)  # breaks include cycles
  set(_uses FALSE)
  if(EXISTS "${path}")
    file(STRINGS "${path}" _includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(_line IN LISTS _includes)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*$" "\\1" _header "${_line}")
      if(_header MATCHES "^(torch|ATen|c10)/")
        set(_uses TRUE)
        break()
      endif()
      get_filename_component(_here "${path}" DIRECTORY)
      foreach(_base "${PROJECT_SOURCE_DIR}" "${_here}")
        if(EXISTS "${_base}/${_header}" AND NOT IS_DIRECTORY "${_base}/${_header}")
          _attnlab_file_uses_torch("${_base}/${_header}" _nested)
          if(_nested)
            set(_uses TRUE)
          endif()
          break()
        endif()
      endforeach()
      if(_uses)
        break()
      endif()
    endforeach()
  endif()
  set_property(GLOBAL PROPERTY "_ATTNLAB_TORCH_FILE_${path}" ${_uses})
  set(${out} ${_uses} PARENT_SCOPE)
endfunction()

# Splits the target's C++ sources (absolute paths) into those that include LibTorch and the
# others. The precompiled headers and the unity builds both choose files by it.
function(_attnlab_split_torch_sources target torch_out other_out)
  get_target_property(_sources ${target} SOURCES)
  get_target_property(_source_dir ${target} SOURCE_DIR)
  set(_torch_files "")
  set(_other_files "")
  foreach(_source IN LISTS _sources)
    if(NOT _source MATCHES "\\.cpp$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${_source}")
      set(_source "${_source_dir}/${_source}")
    endif()
    _attnlab_file_uses_torch("${_source}" _uses)
    if(_uses)
      list(APPEND _torch_files "${_source}")
    else()
      list(APPEND _other_files "${_source}")
    endif()
  endforeach()
  set(${torch_out} ${_torch_files} PARENT_SCOPE)
  set(${other_out} ${_other_files} PARENT_SCOPE)
endfunction()

# The target's C++ sources that do not include LibTorch compile without the precompiled
# header, and so do AUTOMOC's mocs_compilation.cpp (the project's tests include their .moc
# files themselves, so it holds no LibTorch code).
function(_attnlab_skip_pch_where_unused target)
  get_target_property(_binary_dir ${target} BINARY_DIR)
  _attnlab_split_torch_sources(${target} _torch_files _skipped)
  list(APPEND _skipped "${_binary_dir}/${target}_autogen/mocs_compilation.cpp")
  set_source_files_properties(${_skipped} TARGET_DIRECTORY ${target}
                              PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
endfunction()

# Every buildsystem target under `dir`, recursively.
function(_attnlab_targets_under dir out)
  get_property(_targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subdirs)
    _attnlab_targets_under(${_sub} _more)
    list(APPEND _targets ${_more})
  endforeach()
  set(${out} ${_targets} PARENT_SCOPE)
endfunction()

# Every target under the source tree that compiles C++ (executables and libraries), less the
# precompiled headers' donors.
function(_attnlab_compiled_targets out)
  _attnlab_targets_under(${PROJECT_SOURCE_DIR} _all)
  set(_compiled "")
  foreach(_target IN LISTS _all)
    get_target_property(_type ${_target} TYPE)
    if(_type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$"
       AND NOT _target MATCHES "^attnlab_(torch|qt|test)_pch")
      list(APPEND _compiled ${_target})
    endif()
  endforeach()
  set(${out} ${_compiled} PARENT_SCOPE)
endfunction()

# Call once, after every target is declared.
function(attnlab_precompile_torch_headers)
  if(NOT ATTNLAB_PCH)
    return()
  endif()
  set(_donor attnlab_torch_pch)
  add_library(${_donor} STATIC ${PROJECT_SOURCE_DIR}/cmake/torch_pch_anchor.cpp)
  target_link_libraries(${_donor} PRIVATE attnlab_torch)
  target_precompile_headers(${_donor} PRIVATE <torch/torch.h>)
  # The consumers' warning flags: -Wpedantic changes the predefined macros (GCC then leaves
  # __cpp_runtime_arrays undefined), and a predefined macro that differs makes GCC refuse the
  # precompiled header.
  attnlab_warnings(${_donor})
  _attnlab_compiled_targets(_all)
  set(_count 0)
  foreach(_target IN LISTS _all)
    get_target_property(_type ${_target} TYPE)
    get_target_property(_own ${_target} ATTNLAB_OWN_PCH)
    if(_own)
      continue()  # a test with its own donor (AttnLabTestPrecompiledHeaders.cmake)
    endif()
    _attnlab_links(${_target} "^attnlab_torch$" _uses)
    if(_uses)
      # GCC refuses a header precompiled with -fPIC in a -fPIE compile. Qt's targets add -fPIC
      # to whatever links them, executables included; the few executables that link no Qt (the
      # engine's benchmarks) compile with -fPIC too, so that one donor serves every target
      # (a second, -fPIE donor cost 81 s to serve 5 files).
      if(_type STREQUAL "EXECUTABLE")
        target_compile_options(${_target} PRIVATE -fPIC)
      endif()
      target_precompile_headers(${_target} REUSE_FROM ${_donor})
      _attnlab_skip_pch_where_unused(${_target})
      math(EXPR _count "${_count} + 1")
    endif()
  endforeach()
  message(STATUS "AttnLab: precompiled LibTorch headers reused by ${_count} targets")
endfunction()
