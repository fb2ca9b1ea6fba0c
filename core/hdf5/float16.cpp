#include "core/hdf5/float16.h"

// c10's converters are the ones LibTorch itself uses for kHalf, so a tensor and a logged
// series of the same values agree bit for bit.
#include <c10/util/Half.h>

namespace attnlab::core::hdf5 {

std::uint16_t floatToHalfBits(float value) noexcept {
  return c10::detail::fp16_ieee_from_fp32_value(value);
}

float halfBitsToFloat(std::uint16_t bits) noexcept {
  return c10::detail::fp16_ieee_to_fp32_value(bits);
}

void floatsToHalves(const float* in, std::uint16_t* out, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = floatToHalfBits(in[i]);
}

void halvesToFloats(const std::uint16_t* in, float* out, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) out[i] = halfBitsToFloat(in[i]);
}

}  // namespace attnlab::core::hdf5
