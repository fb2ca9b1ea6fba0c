# Precompiled Qt headers for the source files that do not use LibTorch. Such a file in a Qt
# target spent most of its 11-15 s parsing Qt (and QCustomPlot): widgets/plots/bar_chart.cpp
# took 13.4 s without and 4.3 s with a precompiled <QtWidgets> + <qcustomplot.h> on the
# 2-core build machine. The files that use LibTorch keep LibTorch's precompiled header
# (cmake/AttnLabPrecompiledHeaders.cmake); GCC takes one precompiled header per compile.
#
# One donor per set of Qt modules: GCC refuses a precompiled header when a macro it used is
# defined differently, and the QT_<MODULE>_LIB macros follow the modules a target links. The
# donor links the same modules, so its flags match its consumers'. <QtTest> stays out: its
# QT_TESTCASE_SOURCEDIR is each folder's own, and a mismatch makes GCC refuse the header.
include_guard(GLOBAL)
include(AttnLabPrecompiledHeaders)

# GCC also refuses a precompiled header compiled with a macro that the file's compile lacks.
# LibTorch's targets define _GLIBCXX_USE_CXX11_ABI=1 (the standard library's headers test it;
# 1 is also GCC's default), a target that links LibTorch only at link time does not: donors and
# every file that uses them define it, so one donor serves both.
set(_ATTNLAB_QT_PCH_DEFINITIONS _GLIBCXX_USE_CXX11_ABI=1)

# The Qt modules (and QCustomPlot) a target links, directly or through the project's targets,
# with the modules they imply (imported targets are matched by name, not walked), so that two
# targets with the same flags share one donor.
function(_attnlab_qt_modules target out)
  set(_implied_Test Core)
  set(_implied_Gui Core)
  set(_implied_Widgets Gui Core)
  set(_implied_PrintSupport Widgets Gui Core)
  set(_implied_Svg Gui Core)
  set(_implied_QCustomPlot Widgets PrintSupport Gui Core)
  set(_found "")
  foreach(_module Core Gui Widgets PrintSupport Svg Test)
    _attnlab_links(${target} "^Qt6::${_module}$" _uses)
    if(_uses)
      list(APPEND _found ${_module} ${_implied_${_module}})
    endif()
  endforeach()
  _attnlab_links(${target} "^QCustomPlotQt6::" _plot)
  if(_plot)
    list(APPEND _found QCustomPlot ${_implied_QCustomPlot})
  endif()
  # A fixed order: the donor's name and its header list do not depend on link order.
  set(_modules "")
  foreach(_module Core Gui Widgets PrintSupport Svg QCustomPlot)
    if(_module IN_LIST _found)
      list(APPEND _modules ${_module})
    endif()
  endforeach()
  set(${out} ${_modules} PARENT_SCOPE)
endfunction()

# Links `donor` to `modules` (Qt's and QCustomPlot) and sets `out` to their headers, in order.
function(_attnlab_link_qt_modules donor modules out)
  set(_headers "")
  foreach(_module IN LISTS modules)
    if(_module STREQUAL "QCustomPlot")
      target_link_libraries(${donor} PRIVATE QCustomPlotQt6::QCustomPlotQt6)
      list(APPEND _headers <qcustomplot.h>)
    else()
      target_link_libraries(${donor} PRIVATE Qt6::${_module})
      list(APPEND _headers <Qt${_module}>)
    endif()
  endforeach()
  set(${out} ${_headers} PARENT_SCOPE)
endfunction()

# The donor target for one set of modules (created on first use); sets `out` to its name.
function(_attnlab_qt_pch_donor modules out)
  list(JOIN modules "_" _key)
  set(_donor attnlab_qt_pch_${_key})
  if(NOT TARGET ${_donor})
    add_library(${_donor} STATIC ${PROJECT_SOURCE_DIR}/cmake/torch_pch_anchor.cpp)
    set(_headers <vector> <string> <map> <memory> <functional> <algorithm> <optional> <cmath>)
    _attnlab_link_qt_modules(${_donor} "${modules}" _module_headers)
    target_precompile_headers(${_donor} PRIVATE ${_headers} ${_module_headers})
    target_compile_definitions(${_donor} PRIVATE ${_ATTNLAB_QT_PCH_DEFINITIONS})
    attnlab_warnings(${_donor})  # -Wpedantic changes predefined macros (see the torch donor)
  endif()
  set(${out} ${_donor} PARENT_SCOPE)
endfunction()

# The target's C++ files that use no LibTorch compile with the donor's precompiled header.
function(_attnlab_use_qt_pch target donor)
  get_target_property(_binary_dir ${target} BINARY_DIR)
  get_target_property(_donor_dir ${donor} BINARY_DIR)
  set(_header "${_donor_dir}/CMakeFiles/${donor}.dir/cmake_pch.hxx")
  _attnlab_split_torch_sources(${target} _torch_files _files)
  # AUTOMOC's file of the moc outputs: the libraries' holds every Q_OBJECT header's moc; an
  # executable's (a test's) is empty, since each test includes its own .moc, and loading the
  # header for it cost 2 s a test.
  get_target_property(_automoc ${target} AUTOMOC)
  get_target_property(_type ${target} TYPE)
  if(_automoc AND NOT _type STREQUAL "EXECUTABLE")
    list(APPEND _files "${_binary_dir}/${target}_autogen/mocs_compilation.cpp")
  endif()
  if(_files)
    set_source_files_properties(${_files} TARGET_DIRECTORY ${target} PROPERTIES
      SKIP_PRECOMPILE_HEADERS ON)
    set_property(SOURCE ${_files} TARGET_DIRECTORY ${target} APPEND PROPERTY
      COMPILE_DEFINITIONS ${_ATTNLAB_QT_PCH_DEFINITIONS})
    set_property(SOURCE ${_files} TARGET_DIRECTORY ${target} APPEND PROPERTY
      COMPILE_OPTIONS -Winvalid-pch -include ${_header})
    set_property(SOURCE ${_files} TARGET_DIRECTORY ${target} APPEND PROPERTY
      OBJECT_DEPENDS "${_header}.gch")
    add_dependencies(${target} ${donor})
  endif()
endfunction()

# Call once, after every target is declared (and after attnlab_precompile_torch_headers).
function(attnlab_precompile_qt_headers)
  if(NOT ATTNLAB_PCH)
    return()
  endif()
  _attnlab_compiled_targets(_all)
  set(_count 0)
  foreach(_target IN LISTS _all)
    get_target_property(_own ${_target} ATTNLAB_OWN_PCH)
    if(_own)
      continue()  # a test with its own donor (AttnLabTestPrecompiledHeaders.cmake)
    endif()
    _attnlab_qt_modules(${_target} _modules)
    if(NOT _modules)
      continue()
    endif()
    _attnlab_qt_pch_donor("${_modules}" _donor)
    _attnlab_use_qt_pch(${_target} ${_donor})
    math(EXPR _count "${_count} + 1")
  endforeach()
  message(STATUS "AttnLab: precompiled Qt headers used by ${_count} targets")
endfunction()
