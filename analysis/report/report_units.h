#pragma once

#include "analysis/attention/distribution_stats.h"

#include <string>

namespace attnlab::analysis {

/// The unit of an information quantity as reports print it ("nats" or "bits").
inline std::string unitName(LogBase base) {
  return base == LogBase::Bits ? "bits" : "nats";
}

}  // namespace attnlab::analysis
