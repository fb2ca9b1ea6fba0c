#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab::core::hdf5 {

/// IEEE binary16 bits of `value`, rounded to nearest even (overflow gives infinity).
std::uint16_t floatToHalfBits(float value) noexcept;

/// The float a binary16 bit pattern stands for (exact).
float halfBitsToFloat(std::uint16_t bits) noexcept;

/// Converts `count` values; the engine batches whole rows.
void floatsToHalves(const float* in, std::uint16_t* out, std::size_t count) noexcept;
void halvesToFloats(const std::uint16_t* in, float* out, std::size_t count) noexcept;

}  // namespace attnlab::core::hdf5
