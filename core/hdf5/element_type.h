#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab::core::hdf5 {

/// The numeric element types the engine stores. Files always hold them little-endian;
/// Float16 is an IEEE binary16 type derived from H5T_IEEE_F32LE, which h5py reads as
/// numpy.float16.
enum class ElementType { Float16, Float32, Float64, Int8, Int16, Int32, Int64, UInt8, UInt16 };

/// Bytes per element.
std::size_t elementSize(ElementType type) noexcept;

/// Short lower-case name as numpy spells it: "float16", "float32", ..., "uint8".
std::string_view elementTypeName(ElementType type) noexcept;

/// The inverse of elementTypeName; also accepts "f16", "f32", "f64", "i64".
std::optional<ElementType> parseElementType(std::string_view name) noexcept;

}  // namespace attnlab::core::hdf5
