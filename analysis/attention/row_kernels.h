#pragma once

// The arithmetic of attention statistics over rows of float probabilities, vectorised:
// x ln x through a polynomial log, the sums one entropy needs, and the x ln x sums of a
// smoothed row and of the mixture of two rows (JSD). Internal to analysis/attention; kept
// apart from the accumulator's bookkeeping and tested on its own (test_row_kernels).

#include <cstdint>
#include <cstring>

// The row kernels use GCC/Clang vector extensions: 8 floats a vector, lowered to AVX2 in the
// x86-64-v3 clone and to SSE2 pairs in the default one. Plain loops did not vectorise (the
// reduction and the log's selects kept GCC 12 scalar, ~10x slower).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // 32-byte vectors only pass between inlined helpers
#endif

// ATTNLAB_HOT: one copy of the hot loops for x86-64-v3 and one for any x86-64.
#include "core/runtime/simd_clones.h"

#define ATTNLAB_INLINE inline __attribute__((always_inline))

namespace attnlab::analysis::kernels {

using F8 = float __attribute__((vector_size(32)));
using I8 = std::int32_t __attribute__((vector_size(32)));

ATTNLAB_INLINE F8 load8(const float* p) {
  F8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

ATTNLAB_INLINE F8 loadPartial(const float* p, int count) {
  F8 v = {};
  std::memcpy(&v, p, sizeof(float) * static_cast<std::size_t>(count));
  return v;
}

ATTNLAB_INLINE I8 firstLanes(int count) {
  const I8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
  return lane < count;
}

ATTNLAB_INLINE F8 select(I8 mask, F8 v) {
  return (F8)((I8)v & mask);
}

// Natural log of x > 0 (Cephes' logf): x = 2^e m with m in [sqrt(1/2), sqrt(2)), then a
// degree-9 polynomial in m - 1. Relative error < 1e-7 for normal floats. Any other input
// gives a finite, meaningless value that the callers mask out.
ATTNLAB_INLINE F8 logPositive(F8 x) {
  const I8 bits = (I8)x;
  I8 mantissa = (bits & 0x007fffff) | 0x3f800000;  // m in [1, 2)
  const I8 big = mantissa > 0x3fb504f3;            // -1 where m >= sqrt(2)
  mantissa -= big & 0x00800000;                    // ... halve it there
  const F8 e = __builtin_convertvector(((bits >> 23) & 0xff) - 127 - big, F8);
  const F8 f = (F8)mantissa - 1.0f;
  const F8 z = f * f;
  F8 y = f * 7.0376836292e-2f - 1.1514610310e-1f;
  y = y * f + 1.1676998740e-1f;
  y = y * f - 1.2420140846e-1f;
  y = y * f + 1.4249322787e-1f;
  y = y * f - 1.6668057665e-1f;
  y = y * f + 2.0000714765e-1f;
  y = y * f - 2.4999993993e-1f;
  y = y * f + 3.3333331174e-1f;
  y = y * f * z;
  y += e * -2.12194440e-4f;
  y += -0.5f * z;
  return f + y + e * 0.693359375f;
}

// x ln x, 0 where x <= 0 (a NaN or infinite x leaves the row's mass not finite: skipped).
ATTNLAB_INLINE F8 xLogX(F8 x) {
  return select(x > 0.0f, x * logPositive(x));
}

ATTNLAB_INLINE double sumLanes(F8 v) {
  double s = 0.0;
  for (int k = 0; k < 8; ++k) s += v[k];
  return s;
}

struct RowSums {
  double mass, xLogX, squares;
};

// Sum a, sum a ln a and sum a^2 over a[0, n).
ATTNLAB_INLINE RowSums rowSums(const float* a, int n) {
  F8 s = {}, e = {}, q = {};
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const F8 x = load8(a + j);
    s += x;
    q += x * x;
    e += xLogX(x);
  }
  if (j < n) {
    const F8 x = loadPartial(a + j, n - j);  // zeros contribute nothing
    s += x;
    q += x * x;
    e += xLogX(x);
  }
  return {sumLanes(s), sumLanes(e), sumLanes(q)};
}

// sum x ln x over x = c a + d (a smoothed, renormalised row).
ATTNLAB_INLINE double affineXLogX(const float* a, int n, float c, float d) {
  F8 e = {};
  int j = 0;
  for (; j + 8 <= n; j += 8) e += xLogX(load8(a + j) * c + d);
  if (j < n) e += select(firstLanes(n - j), xLogX(loadPartial(a + j, n - j) * c + d));
  return sumLanes(e);
}

// sum m ln m over m = ca a + cb b + d (the mixture of two rows, smoothed when d > 0).
ATTNLAB_INLINE double mixtureXLogX(const float* a, const float* b, int n, float ca, float cb,
                                   float d) {
  F8 e = {};
  int j = 0;
  for (; j + 8 <= n; j += 8) e += xLogX(load8(a + j) * ca + load8(b + j) * cb + d);
  if (j < n) {
    const F8 m = loadPartial(a + j, n - j) * ca + loadPartial(b + j, n - j) * cb + d;
    e += select(firstLanes(n - j), xLogX(m));
  }
  return sumLanes(e);
}

}  // namespace attnlab::analysis::kernels
