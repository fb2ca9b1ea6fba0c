#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::analysis {

/// The target matrix of one attention-guidance pattern (Deshpande & Narasimhan) for a
/// sequence of pieces, as guidance conformity's total-variation distance reads it
/// (docs/analysis.md#guidance-conformity): row i is the pattern's normalised distribution
/// over keys. next: key i + 1; prev: key i - 1; first: key 0; separator: uniform over the
/// `</s>` positions; period: uniform over the period pieces ("." and "\u2581."). Rows where the
/// pattern is empty (the last row for next, row 0 for prev, every row when the sequence has
/// no separator or period) are all zero. Positions at or past `length` (padding) are zero in
/// both directions.
///
/// Returns T x T row-major floats, T = pieces.size(); `length` < 0 means T. Throws
/// std::invalid_argument for a name outside kGuidancePatterns.
std::vector<float> guidancePatternMatrix(std::string_view pattern,
                                         const std::vector<std::string>& pieces, int length = -1);

/// True for the pieces guidance and the head summaries count as a period.
bool isPeriodPiece(std::string_view piece);

}  // namespace attnlab::analysis
