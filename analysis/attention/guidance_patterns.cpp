#include "analysis/attention/guidance_patterns.h"

#include "analysis/attention/attention_statistics.h"
#include "core/tokenizer/piece_roles.h"

#include <algorithm>
#include <stdexcept>

namespace attnlab::analysis {

bool isPeriodPiece(std::string_view piece) {
  return core::isPeriodPiece(piece);
}

std::vector<float> guidancePatternMatrix(std::string_view pattern,
                                         const std::vector<std::string>& pieces, int length) {
  const int T = static_cast<int>(pieces.size());
  const int n = length < 0 ? T : std::min(length, T);
  std::vector<float> m(static_cast<std::size_t>(T) * T, 0.0f);
  const auto set = [&](int row, int col, float value) {
    m[static_cast<std::size_t>(row) * T + col] = value;
  };
  // Token patterns: every row is the same uniform distribution over the matching keys.
  const auto uniformOver = [&](auto matches) {
    std::vector<int> keys;
    for (int j = 0; j < n; ++j)
      if (matches(pieces[static_cast<std::size_t>(j)])) keys.push_back(j);
    if (keys.empty()) return;
    const float share = 1.0f / static_cast<float>(keys.size());
    for (int i = 0; i < n; ++i)
      for (const int j : keys) set(i, j, share);
  };
  if (pattern == "next") {
    for (int i = 0; i + 1 < n; ++i) set(i, i + 1, 1.0f);
  } else if (pattern == "prev") {
    for (int i = 1; i < n; ++i) set(i, i - 1, 1.0f);
  } else if (pattern == "first") {
    for (int i = 0; i < n; ++i) set(i, 0, 1.0f);
  } else if (pattern == "separator") {
    uniformOver([](const std::string& p) { return core::isSequenceEndPiece(p); });
  } else if (pattern == "period") {
    uniformOver([](const std::string& p) { return isPeriodPiece(p); });
  } else {
    std::string known;
    for (const char* name : kGuidancePatterns)
      known += std::string(known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown guidance pattern '" + std::string(pattern) +
                                "' (known: " + known + ")");
  }
  return m;
}

}  // namespace attnlab::analysis
