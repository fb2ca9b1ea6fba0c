# The Qt Test executables' build (issue 43's stop: the README's test command had outgrown its
# 25 minutes). Each test is one file whose compile is mostly the front end and the code of
# LibTorch's and QtTest's inline functions. Two things halve it on the 2-core build machine:
#
# - One precompiled header per kind of test that holds everything a test parses before its
#   own code: LibTorch (for the tests that use it), the Qt modules the test links and <QtTest>.
#   The library donors (AttnLabPrecompiledHeaders, AttnLabQtPrecompiledHeaders) hold either
#   LibTorch or Qt, never both, and never <QtTest>: a LibTorch test parsed Qt and QtTest itself
#   (tests/app/test_model_folder_window.cpp: 11.2 s with LibTorch's header, 7.8 s with this).
#   The donors live in this folder, so QtTest's QT_TESTCASE_* macros are the tests' own.
# - The tests' own code at ATTNLAB_TEST_OPTIMIZATION (default -O0): a test's code runs once
#   and calls the optimised libraries for the work. tests/core/test_model.cpp: 12.8 s at -O2
#   with LibTorch's header, 6.0 s at -O0 with its test header; tests/core/test_config.cpp 8.4 s
#   and 4.4 s. GCC refuses a header precompiled at another -O level, so the donors use it too.
#   At -O0 a test keeps Qt 6's inline member functions out of line, and the linker exported
#   them: Debian's libtorch loads Qt 5 (through OpenCV), whose libQt5Widgets then bound
#   QByteArray::append to the test's Qt 6 copy and crashed (three GUI tests, 2026-11-26).
#   -fvisibility-inlines-hidden keeps those copies private to the executable.
#
# LibTorch comes first in the header: Qt's `slots` macro breaks LibTorch's headers, and a
# test that includes LibTorch headers beyond <torch/torch.h> gets them after Qt's (compile
# errors would say so).
include_guard(GLOBAL)
include(AttnLabPrecompiledHeaders)
include(AttnLabQtPrecompiledHeaders)

set(ATTNLAB_TEST_OPTIMIZATION "-O0" CACHE STRING
    "The optimisation flag of the Qt tests' own code (the libraries keep the build type's)")
set(_ATTNLAB_TEST_FLAGS ${ATTNLAB_TEST_OPTIMIZATION} -fvisibility-inlines-hidden)

# The donor for tests that use LibTorch (`torch`) and link `modules`; sets `out` to its name.
function(_attnlab_test_pch_donor torch modules out)
  list(JOIN modules "_" _key)
  set(_donor attnlab_test_pch_${_key})
  if(torch)
    set(_donor attnlab_test_pch_torch_${_key})
  endif()
  if(NOT TARGET ${_donor})
    add_library(${_donor} STATIC ${PROJECT_SOURCE_DIR}/cmake/torch_pch_anchor.cpp)
    set(_headers "")
    if(torch)
      target_link_libraries(${_donor} PRIVATE attnlab_torch)
      list(APPEND _headers <torch/torch.h>)
    endif()
    list(APPEND _headers <vector> <string> <map> <memory> <functional> <algorithm> <optional>
         <cmath> <filesystem>)
    _attnlab_link_qt_modules(${_donor} "${modules}" _module_headers)
    target_link_libraries(${_donor} PRIVATE Qt6::Test)
    list(APPEND _headers ${_module_headers} <QtTest>)
    target_precompile_headers(${_donor} PRIVATE ${_headers})
    target_compile_definitions(${_donor} PRIVATE ${_ATTNLAB_QT_PCH_DEFINITIONS}
                                                 ${ATTNLAB_TEST_DEFINITIONS})
    target_compile_options(${_donor} PRIVATE ${_ATTNLAB_TEST_FLAGS})
    set_target_properties(${_donor} PROPERTIES AUTOMOC OFF)
    attnlab_warnings(${_donor})  # -Wpedantic changes predefined macros (see the torch donor)
    set_target_properties(${_donor} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  set(${out} ${_donor} PARENT_SCOPE)
endfunction()

# Call once, at the end of tests/CMakeLists.txt, for the targets attnlab_add_qtest made (the
# global property ATTNLAB_QTEST_TARGETS); the library donors then leave these targets alone.
function(attnlab_precompile_test_headers)
  get_property(_tests GLOBAL PROPERTY ATTNLAB_QTEST_TARGETS)
  set(_count 0)
  foreach(_target IN LISTS _tests)
    target_compile_options(${_target} PRIVATE ${_ATTNLAB_TEST_FLAGS})
    if(NOT ATTNLAB_PCH)
      continue()
    endif()
    _attnlab_split_torch_sources(${_target} _torch_files _other_files)
    set(_torch FALSE)
    if(_torch_files)
      set(_torch TRUE)
      _attnlab_links(${_target} "^attnlab_torch$" _links_torch)
      if(NOT _links_torch)
        continue()  # includes LibTorch without linking it: nothing to precompile for
      endif()
    endif()
    _attnlab_qt_modules(${_target} _modules)
    _attnlab_test_pch_donor(${_torch} "${_modules}" _donor)
    # The donor's _GLIBCXX_USE_CXX11_ABI=1, which a test that does not link LibTorch lacks.
    target_compile_definitions(${_target} PRIVATE ${_ATTNLAB_QT_PCH_DEFINITIONS})
    target_precompile_headers(${_target} REUSE_FROM ${_donor})
    set_target_properties(${_target} PROPERTIES ATTNLAB_OWN_PCH ON)
    math(EXPR _count "${_count} + 1")
  endforeach()
  message(STATUS "AttnLab: precompiled test headers (${ATTNLAB_TEST_OPTIMIZATION}) used by "
                 "${_count} tests")
endfunction()
