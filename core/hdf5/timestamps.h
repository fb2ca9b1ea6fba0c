#pragma once

#include <string>

namespace attnlab::core::hdf5 {

/// Seconds since the Unix epoch, with sub-second resolution (the wall_time columns).
double wallTimeSeconds();

/// The current UTC time as ISO 8601, e.g. "2024-05-01T12:34:56Z" (created_utc attributes).
std::string utcTimestamp();

}  // namespace attnlab::core::hdf5
