# Third-party packages, all from Debian's archive (see packaging/install-deps.sh).

find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)

# LibTorch: Debian's libtorch-dev is CPU-only. A CUDA build points Torch_DIR at a
# CUDA LibTorch distribution and turns ATTNLAB_CUDA on.
if(ATTNLAB_CUDA)
  # Without a list TorchConfig compiles and runs a probe for the GPUs of this machine, which
  # has none on the build machines (and the probe fails when CMake re-runs itself). The
  # project has no CUDA sources of its own; the list only feeds TorchConfig's nvcc flags.
  if(DEFINED ENV{TORCH_CUDA_ARCH_LIST})
    set(_attnlab_arch_default "$ENV{TORCH_CUDA_ARCH_LIST}")
  else()
    set(_attnlab_arch_default "8.0;9.0")
  endif()
  set(TORCH_CUDA_ARCH_LIST "${_attnlab_arch_default}" CACHE STRING
      "GPU architectures for TorchConfig's nvcc flags (8.0 A100, 9.0 H100)")
endif()
find_package(Torch REQUIRED)
if(ATTNLAB_CUDA)
  if(NOT TORCH_CUDA_LIBRARIES AND NOT TARGET torch_cuda)
    message(FATAL_ERROR "ATTNLAB_CUDA=ON but the LibTorch found at '${Torch_DIR}' has no CUDA support; "
                        "set -DTorch_DIR=<cuda-libtorch>/share/cmake/Torch")
  endif()
  # A CUDA LibTorch's TorchConfig looks for its libraries and its Caffe2 package in the
  # system's folders first; with Debian's libtorch-dev installed it would silently mix the
  # two. Refuse a libtorch.so that does not sit under Torch_DIR's prefix.
  cmake_path(GET Torch_DIR PARENT_PATH _attnlab_torch_share)
  cmake_path(GET _attnlab_torch_share PARENT_PATH _attnlab_torch_share)
  cmake_path(GET _attnlab_torch_share PARENT_PATH _attnlab_torch_root)
  cmake_path(IS_PREFIX _attnlab_torch_root "${TORCH_LIBRARY}" NORMALIZE _attnlab_torch_ours)
  if(NOT _attnlab_torch_ours)
    message(FATAL_ERROR "ATTNLAB_CUDA=ON: Torch_DIR is '${Torch_DIR}' but libtorch was found at "
                        "'${TORCH_LIBRARY}'; add -DCMAKE_PREFIX_PATH=${_attnlab_torch_root} "
                        "-DCaffe2_DIR=${_attnlab_torch_share}/Caffe2 (packaging/setup-cuda.sh does)")
  endif()
endif()
# TorchConfig exports its flags as a plain list; wrap them in one interface target.
add_library(attnlab_torch INTERFACE)
target_link_libraries(attnlab_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(attnlab_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
if(ATTNLAB_CUDA)
  target_compile_definitions(attnlab_torch INTERFACE ATTNLAB_WITH_CUDA=1)
endif()

# HDF5's C API only, and only for core/hdf5 (attnlab_core_hdf5 links this PRIVATE): its
# wrappers keep <hdf5.h> out of every other file.
find_package(HDF5 REQUIRED COMPONENTS C)
add_library(attnlab_hdf5 INTERFACE)
target_include_directories(attnlab_hdf5 SYSTEM INTERFACE ${HDF5_INCLUDE_DIRS})
target_link_libraries(attnlab_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(attnlab_hdf5 INTERFACE ${HDF5_DEFINITIONS})

# Only the isolated bridge (core/tokenizer/sp_bridge) may use this.
pkg_check_modules(SENTENCEPIECE REQUIRED IMPORTED_TARGET sentencepiece)

# Unicode properties, NFD and lowercase for the Hugging Face tokenizers; only
# core/tokenizer/unicode_text.cpp includes ICU (attnlab_core_base links it PRIVATE).
pkg_check_modules(ICU REQUIRED IMPORTED_TARGET icu-uc)

# Compressed text corpora (core/data/compressed_reader.cpp): gzip and zstd.
find_package(ZLIB REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)

find_package(nlohmann_json 3 REQUIRED)
find_package(tomlplusplus QUIET)
if(NOT tomlplusplus_FOUND)
  pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
  add_library(tomlplusplus::tomlplusplus ALIAS PkgConfig::TOMLPP)
endif()
find_package(CLI11 REQUIRED)

# Qt: the GUI needs Widgets (with Gui), PrintSupport and Svg, and QCustomPlot; the tests
# need Core and Test. The headless build without tests needs no Qt at all.
set(_attnlab_qt_components "")
if(ATTNLAB_GUI)
  list(APPEND _attnlab_qt_components Core Gui Widgets PrintSupport Svg)
endif()
if(ATTNLAB_BUILD_TESTS)
  list(APPEND _attnlab_qt_components Core Test)
endif()
list(REMOVE_DUPLICATES _attnlab_qt_components)
if(_attnlab_qt_components)
  find_package(Qt6 REQUIRED COMPONENTS ${_attnlab_qt_components})
endif()
if(ATTNLAB_GUI)
  find_package(QCustomPlotQt6 REQUIRED)
endif()
