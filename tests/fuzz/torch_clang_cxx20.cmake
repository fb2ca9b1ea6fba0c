# Debian's LibTorch (1.13) headers and clang 14 in C++20 with libstdc++ 12: ATen/core/List.h uses
# std::vector<c10::IValue> members (ListImpl's constructor, ptr_to_first_element) while IValue
# is still incomplete. Those members are constexpr in C++20 and clang instantiates them on
# the spot, so every file that includes <torch/torch.h> fails ("arithmetic on a pointer to an
# incomplete type 'c10::IValue'"); GCC defers and accepts it. PyTorch fixed its headers later
# (pytorch/pytorch#93978). For the fuzz build only, a patched copy of List.h goes in front of
# the system one: the constructor becomes a template (instantiated where IValue is complete)
# and ptr_to_first_element() takes data() instead of &list[0]. Nothing else changes, and the
# layout and ABI are the same. When the installed header no longer has these lines, no copy is
# made.
find_file(ATTNLAB_TORCH_LIST_H ATen/core/List.h PATHS ${TORCH_INCLUDE_DIRS} /usr/include
          NO_DEFAULT_PATH)
if(NOT ATTNLAB_TORCH_LIST_H)
  return()
endif()
file(READ "${ATTNLAB_TORCH_LIST_H}" _list_h)
set(_ctor_old "  explicit ListImpl(list_type list_, TypePtr elementType_)")
set(_ctor_new "  template <class L = list_type>\n  explicit ListImpl(L list_, TypePtr elementType_)")
set(_first_old "  return &list.impl_->list[0];")
set(_first_new "  return list.impl_->list.data();")
string(FIND "${_list_h}" "${_ctor_old}" _ctor_at)
string(FIND "${_list_h}" "${_first_old}" _first_at)
if(_ctor_at EQUAL -1 AND _first_at EQUAL -1)
  return()
endif()
string(REPLACE "${_ctor_old}" "${_ctor_new}" _list_h "${_list_h}")
string(REPLACE "${_first_old}" "${_first_new}" _list_h "${_list_h}")
set(_overlay ${PROJECT_BINARY_DIR}/torch-clang-cxx20)
file(CONFIGURE OUTPUT ${_overlay}/ATen/core/List.h CONTENT "${_list_h}" @ONLY)
set_property(TARGET attnlab_torch PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             ${_overlay} ${TORCH_INCLUDE_DIRS})
set_property(TARGET attnlab_torch APPEND PROPERTY INTERFACE_SYSTEM_INCLUDE_DIRECTORIES ${_overlay})
message(STATUS "AttnLab fuzz: using a C++20-clean copy of ${ATTNLAB_TORCH_LIST_H} (${_overlay})")
