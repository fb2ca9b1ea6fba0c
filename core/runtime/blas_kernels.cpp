#include "core/runtime/blas_kernels.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string_view>

namespace attnlab::core {

namespace {

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Cores whose float kernels use no AVX2: what OpenBLAS falls back to on an unknown Intel CPU
// (Prescott) and its older choices. A core not listed (Haswell, SkylakeX, Zen, ...) is left
// as OpenBLAS chose it.
bool narrowerThanAvx2(const std::string& core) {
  constexpr std::array<std::string_view, 9> narrow = {"prescott",   "core2",     "penryn",
                                                      "dunnington", "nehalem",   "atom",
                                                      "katmai",     "northwood", "sandybridge"};
  const std::string name = lowered(core);
  return std::find(narrow.begin(), narrow.end(), name) != narrow.end();
}

// __builtin_cpu_supports consults the OS's saved register state (XCR0) for AVX and AVX-512.
std::string widestSupportedCore() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

}  // namespace

std::string loadedBlasCoreName() {
  using CoreName = char* (*)();
  auto* corename = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (corename == nullptr) return "";
  const char* name = corename();
  return name != nullptr ? name : "";
}

std::string blasCoreTypeFor(const std::string& loadedCore, const std::string& widestCore) {
  if (loadedCore.empty() || !narrowerThanAvx2(loadedCore)) return "";
  return widestCore;
}

std::string betterBlasCoreType() {
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr) return "";
  return blasCoreTypeFor(loadedBlasCoreName(), widestSupportedCore());
}

bool requestBetterBlasKernels() {
  const std::string core = betterBlasCoreType();
  if (core.empty()) return false;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  return true;
}

}  // namespace attnlab::core
