#pragma once

#include "analysis/attention/colour_classes.h"
#include "analysis/attention/distribution_stats.h"
#include "analysis/attention/streaming_distribution.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace attnlab::analysis {

/// Per position of one sequence: what the head summaries and guidance patterns need.
struct SequenceRoles {
  int length = 0;  ///< real tokens (positions [0, length)); the rest is padding
  std::vector<std::uint8_t> separator;  ///< 1 where the token is a separator (</s>), size >= length
  std::vector<std::uint8_t> period;     ///< 1 where the token is a period piece
  // Either vector may also be empty, meaning "no such token in this sequence".
};

struct StatisticsOptions {
  LogBase jsdBase = LogBase::Bits;
  bool clarkSmoothing = false;          ///< smooth rows before every JSD (adjacent and pairwise)
  std::int64_t pairwiseSequences = 64;  ///< all-pairs head JSD over the first N sequences (cost
                                        ///< grows with (L*H)^2); 0 = off
  int threads = 0;                      ///< 0 = all cores
};

/// Mean attention mass over real query rows (Clark et al., "What does BERT look at?").
struct HeadSummary {
  double first = 0, separator = 0, period = 0, previous = 0, next = 0, self = 0;
};

/// The guidance patterns conformity is measured against (Deshpande & Narasimhan).
inline constexpr std::array<const char*, 5> kGuidancePatterns = {"next", "prev", "first",
                                                                 "separator", "period"};

struct AttentionStatisticsResult {
  int layers = 0, heads = 0;
  LogBase jsdBase = LogBase::Bits;
  bool clarkSmoothing = false;
  std::int64_t sequences = 0, rows = 0;  ///< sequences seen, real query rows per head
  std::int64_t skippedRows = 0;  ///< (head, row) pairs left out because the row's real mass was 0
  std::vector<DistributionSummary> entropy;  ///< [layer * heads + head], nats
  /// Same index: entropyColour() of the median, RealFormer's classes (colour_classes.h;
  /// docs/analysis.md#colour-classes).
  std::vector<ColourClass> entropyColours;
  std::vector<std::vector<int>> headOrder;  ///< per layer: orderByMedian() of its entropy
  /// [(layer-1) * heads + head] for layer 1..L-1: JSD(head_i^L, head_i^{L-1}) per token, in
  /// jsdBase.
  std::vector<DistributionSummary> adjacentJsd;
  /// Same index: colourClass() of the median with jsdColourThresholds(jsdBase).
  std::vector<ColourClass> jsdColours;
  /// [(L*H) x (L*H)] mean JSD between any two heads, row-major, in jsdBase; empty when off.
  std::vector<double> pairwiseJsd;
  std::int64_t pairwiseSequencesUsed = 0;
  std::vector<HeadSummary> headSummaries;  ///< [L*H]
  /// [L*H*5] mean over rows of total-variation distance to each pattern of kGuidancePatterns
  /// (0 = follows it exactly, 1 = disjoint); NaN where the pattern never applied (no
  /// separator or period in any sequence).
  std::vector<double> guidanceDistance;
  /// [L*H*5] mean over real T x T cells of (A - P)^2, P the official code's unnormalised 0/1
  /// pattern (the official code's `mean` loss, not the engine's default Frobenius one; see
  /// docs/analysis.md#guidance-conformity).
  std::vector<double> guidanceMse;
};

/// Streams sequences; memory is fixed by (L, H, max length), not by the number of sequences.
/// Evaluation sets give billions of attention rows, so every statistic is kept as a
/// fixed-size accumulator (StreamingDistribution, sums) and the probabilities are only read.
///
/// Speed: per element one float log for the entropy (-sum p ln p) and one per adjacent layer
/// pair, because JSD(p, q) = H(m) - (H(p) + H(q)) / 2 reuses the rows' entropies. The log is
/// a vectorised polynomial (relative error < 1e-7), sums are in float per row and double
/// across rows: entropies are exact to ~1e-6 and JSDs to ~1e-5 absolute, far below the
/// histograms' resolution. Work is spread over heads and sequences with OpenMP; results do
/// not depend on the thread count or on how sequences are batched (everything is reduced in
/// sequence order).
class AttentionStatistics {
 public:
  /// Throws std::invalid_argument unless layers, heads and maxLength are >= 1.
  AttentionStatistics(int layers, int heads, int maxLength, StatisticsOptions options = {});

  /// One sequence's attention probabilities, [L, H, T, T] float32 row-major (T = stride >=
  /// roles.length). Only rows and columns < roles.length are used; each row is renormalised
  /// over its real keys (attention mass on padding keys is dropped). Rows whose real mass is
  /// 0 (or not finite) are skipped and counted.
  void addSequence(const float* probabilities, int T, const SequenceRoles& roles);
  /// Several sequences at once, [B, L, H, T, T] or [L, B, H, T, T] (`layerMajor`, the layout
  /// of a stack of per-layer batch tensors), parallel over sequences and heads. Gives exactly
  /// what addSequence() in order gives.
  void addBatch(const float* probabilities, int batch, int T, std::span<const SequenceRoles> roles,
                bool layerMajor);
  /// Adds another accumulator's sequences (same layers, heads, maxLength, jsdBase and
  /// smoothing; std::invalid_argument otherwise). Counts and histograms add exactly; means
  /// agree with a single accumulator to rounding.
  void merge(const AttentionStatistics& other);

  AttentionStatisticsResult result() const;

  int layers() const { return m_layers; }
  int heads() const { return m_heads; }
  int maxLength() const { return m_maxLength; }
  const StatisticsOptions& options() const { return m_options; }
  std::int64_t sequences() const { return m_sequences; }
  /// Threads the work is spread over (options.threads, or all cores when 0).
  int threads() const { return threadCount(); }
  /// Heap bytes held (accumulators and scratch): fixed by the shape, not the sequence count.
  std::size_t memoryBytes() const;

  /// Per (layer, head) sums behind the head summaries and guidance figures.
  struct HeadSums {
    double first = 0, separator = 0, period = 0, previous = 0, next = 0, self = 0;
    std::int64_t rows = 0, previousRows = 0, nextRows = 0, skipped = 0;
    std::array<double, 5> tvd{};
    std::array<std::int64_t, 5> tvdRows{};
    std::array<double, 5> squaredError{};
    std::int64_t cells = 0;
    void add(const HeadSums& other);
  };

 private:
  void processChunk(const float* const* bases, std::int64_t layerStride, int count, int T,
                    const SequenceRoles* roles);
  int threadCount() const;

  int m_layers = 0, m_heads = 0, m_maxLength = 0;
  StatisticsOptions m_options;
  int m_chunk = 1;  // sequences processed together (parallel over sequences x heads)
  std::int64_t m_sequences = 0, m_rows = 0;
  std::vector<StreamingDistribution> m_entropy;      // [L*H]
  std::vector<StreamingDistribution> m_adjacentJsd;  // [(L-1)*H]
  std::vector<HeadSums> m_sums;                      // [L*H]
  std::vector<double> m_pairSum;                     // [(L*H)^2], upper triangle used
  std::vector<std::int64_t> m_pairRows;
  std::int64_t m_pairwiseSequencesUsed = 0;
  // Scratch for one chunk of sequences, reused across calls: [slot][layer][head][row] per
  // row values, [slot][layer][head] sums. Sized by the shape and m_chunk only.
  std::vector<double> m_rowEntropy, m_rowJsdEntropy, m_rowInverse, m_rowJsd;
  std::vector<HeadSums> m_slotSums;
};

}  // namespace attnlab::analysis
