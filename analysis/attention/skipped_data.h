#pragma once

#include <string>

namespace attnlab::analysis {

/// Input an analysis left out, so a report can say how much of the data was used and why not
/// the rest (evaluation text lines, probe sentences, CoNLL lines, examples too long).
struct SkippedData {
  std::string where;   ///< "file:line" or "synthetic:17"
  std::string reason;  ///< what was wrong
};

}  // namespace attnlab::analysis
