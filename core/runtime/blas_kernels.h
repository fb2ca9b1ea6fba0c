#pragma once

// OpenBLAS (Debian's 0.3.21, which Debian's LibTorch calls for every float matrix product)
// picks its kernels from the CPU's model number when it is loaded. On a CPU whose model it
// does not know (a virtual machine's generic "Intel(R) Xeon(R) Processor", Xeons newer than
// the release) it falls back to Prescott's SSE3 kernels even where AVX-512 is present:
// measured on this project's 2-core machine, 65 GFLOP/s for a 1024^2 float32 product against
// 222 with OPENBLAS_CORETYPE=SkylakeX. The variable is read only at load time, so a program
// that wants the right kernels sets it and executes itself again (see the two main()s).

#include <string>

namespace attnlab::core {

/// The OPENBLAS_CORETYPE this process should run with, or "" when nothing is to change:
/// OpenBLAS is not the loaded BLAS (the CUDA line's LibTorch brings its own), the variable is
/// already set (an explicit choice wins, and a program re-executed once stops here), or
/// OpenBLAS chose kernels at least as wide as the CPU supports. "SkylakeX" for a CPU with
/// AVX-512 (F, BW, DQ, VL, CD, with the OS saving their registers), "Haswell" for AVX2 + FMA.
std::string betterBlasCoreType();

/// The rule behind betterBlasCoreType(), without the process: `loadedCore` as
/// openblas_get_corename names it ("" without OpenBLAS), `widestCore` the widest this CPU runs
/// ("SkylakeX", "Haswell" or ""). A core without AVX2 (Prescott and older, Sandybridge) is
/// replaced by `widestCore`; any other is kept (""), and so is an unknown CPU.
std::string blasCoreTypeFor(const std::string& loadedCore, const std::string& widestCore);

/// Sets OPENBLAS_CORETYPE to betterBlasCoreType() when that names one; true when it did. It
/// takes effect only in a program started afterwards: the caller executes itself again.
bool requestBetterBlasKernels();

/// The core OpenBLAS chose in this process (openblas_get_corename), or "" without OpenBLAS.
std::string loadedBlasCoreName();

}  // namespace attnlab::core
