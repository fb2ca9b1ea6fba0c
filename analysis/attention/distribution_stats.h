#pragma once

#include <span>

namespace attnlab::analysis {

/// Logarithm base of an information quantity; entropy defaults to nats, JSD to bits
/// (the units of RealFormer's figures, see docs/analysis.md#units).
enum class LogBase { Nats, Bits };

/// Shannon entropy -sum p log p of one attention row. Zero entries contribute 0.
/// The row is used as given (callers drop padding keys and renormalise first).
double entropy(std::span<const float> p, LogBase base = LogBase::Nats);

/// Jensen-Shannon divergence 0.5 KL(p||m) + 0.5 KL(q||m), m = (p + q) / 2.
/// Bounded by 1 bit (ln 2 nats). `p` and `q` must have the same length.
double jensenShannon(std::span<const float> p, std::span<const float> q,
                     LogBase base = LogBase::Bits);

/// Clark et al.'s smoothing before JSD: p' = eps/n + (1-eps) p, eps = 0.001. Their
/// head_distances.py applies it so that rows with exact zeros (one-hot heads) still give a
/// finite, comparable divergence; kept as a constant so every JSD that uses it agrees.
inline constexpr double kClarkSmoothing = 0.001;

/// jensenShannon() of the two rows after Clark et al.'s smoothing (n = the rows' length), for
/// reproducing their head-distance figures. Throws std::invalid_argument on a length
/// mismatch or empty rows.
double jensenShannonSmoothed(std::span<const float> p, std::span<const float> q,
                             LogBase base = LogBase::Bits);

}  // namespace attnlab::analysis
