// Linked into every test executable: the test process hands the OpenBLAS kernels it runs with
// to every program it starts (OPENBLAS_CORETYPE, inherited). attnlab and attnlab-cli would
// otherwise switch to wider kernels where OpenBLAS chose narrow ones
// (core/runtime/blas_kernels.h), and the tests that compare their results bitwise with
// training done in the test process would compare two different summation orders. Plain dlsym,
// so that test executables without LibTorch need nothing more.
#include <dlfcn.h>

#include <cstdlib>

namespace {

// Static initialisers of the executable run after the shared libraries' constructors, where
// OpenBLAS chooses its kernels.
const bool kSameKernelsForChildren = [] {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return false;
  using CoreName = char* (*)();
  auto* corename = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (corename == nullptr || corename() == nullptr) return false;
  return setenv("OPENBLAS_CORETYPE", corename(), 1) == 0;
}();

}  // namespace
