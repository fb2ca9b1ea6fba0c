#pragma once

// Corpus summaries of what the attention weights alone do not show (issue 27): how rollout
// spreads from the diagonal, how well the weights predict the norms of what they mix, and
// where the logit lens starts to predict the masked token. Streamed: every accumulator holds
// sums of a size fixed by the model's shape, never per-sequence data. Plain C++ (no Qt, no
// LibTorch); docs/analysis.md#corpus-summaries-beyond-the-weights gives each formula.

#include "analysis/attention/attention_rollout.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace attnlab::analysis {

/// Attention rollout (Abnar & Zuidema 2020) per layer, means over every real query row i of
/// every sequence: the diagonal mass R_ii, the spread sum_j R_ij |i - j| (tokens) and the row
/// entropy -sum_j R_ij ln R_ij (nats).
struct RolloutSummary {
  int layers = 0;
  std::int64_t rows = 0;         ///< real query rows per layer
  std::vector<double> diagonal;  ///< [L]
  std::vector<double> spread;    ///< [L], tokens
  std::vector<double> entropy;   ///< [L], nats
};

/// Norm-based attention (Kobayashi et al. 2020) against the weights, over every real (query,
/// key) cell: per (layer, head) the Pearson correlation of alpha_ij,h and
/// ||alpha_ij,h f_h(x_j)|| and the mean ||f_h(x_j)|| over real keys; per layer the correlation
/// of the heads' mean weight (1/H) sum_h alpha_ij,h and ||sum_h alpha_ij,h f_h(x_j)||.
/// A correlation is NaN where either side never varied.
struct NormSummary {
  int layers = 0, heads = 0;
  std::int64_t cells = 0;                ///< real cells per head
  std::vector<double> headCorrelation;   ///< [L*H], layer * heads + head
  std::vector<double> meanValueNorm;     ///< [L*H], the model's hidden-state units
  std::vector<double> layerCorrelation;  ///< [L]
};

/// The logit lens at the masked positions, per row (the layers, then SesameBERT's combined
/// output when `outputRow`): accuracy (fraction with rank 0), mean rank (tokens scored above
/// the target), mean entropy (nats), mean KL(output || row) (nats).
struct LensSummaryRow {
  double accuracy = 0, meanRank = 0, meanEntropy = 0, meanKlToOutput = 0;
};
struct LensSummary {
  int layers = 0;
  bool outputRow = false;
  std::uint64_t seed = 0;      ///< the masking's seed (the run's run.seed)
  double maskFraction = 0.15;  ///< of each sequence's real non-special tokens, at least one
  std::int64_t positions = 0;  ///< masked positions scored
  std::vector<LensSummaryRow> rows;
  /// The first row whose accuracy reaches half the last row's (the output's); -1 when the
  /// output's accuracy is 0 (nothing to reach).
  int halfAccuracyRow = -1;
};

/// What `attnlab-cli analyze` adds beyond the weights; each absent when switched off.
struct BeyondWeightsSummaries {
  std::optional<RolloutSummary> rollout;
  std::optional<NormSummary> norms;
  std::optional<LensSummary> lens;
  /// The lens was asked for and not made: the model has no MLM head (a Hugging Face
  /// BertModel / RobertaModel saved alone). analysis.json: "lens_skipped": "no_mlm_head".
  bool lensSkippedNoMlmHead = false;
};

/// Streaming Pearson correlation (Welford's co-moments: no cancellation over millions of
/// cells).
class PearsonAccumulator {
 public:
  void add(double x, double y);
  std::int64_t count() const { return m_n; }
  /// NaN with fewer than two pairs or a constant side.
  double correlation() const;

 private:
  std::int64_t m_n = 0;
  double m_meanX = 0, m_meanY = 0, m_xx = 0, m_yy = 0, m_xy = 0;
};

class RolloutAccumulator {
 public:
  explicit RolloutAccumulator(int layers);
  /// One sequence's attention; the first `valid` positions are real.
  void addSequence(const AttentionStack& attention, int valid);
  RolloutSummary result() const;

 private:
  int m_layers;
  std::int64_t m_rows = 0;
  std::vector<double> m_diagonal, m_spread, m_entropy;
};

/// One layer of one sequence as captureBatch gives it: each pointer at the sequence's block,
/// row-major, `T` the padded length; only [0, valid) takes part.
struct NormLayerView {
  const float* weights = nullptr;     ///< [H, T, T] softmax output
  const float* headNorms = nullptr;   ///< [H, T, T]
  const float* valueNorms = nullptr;  ///< [H, T]
  const float* layerNorms = nullptr;  ///< [T, T]
  int T = 0;
  int valid = 0;
};

class NormAccumulator {
 public:
  NormAccumulator(int layers, int heads);
  void addLayer(int layer, const NormLayerView& view);
  NormSummary result() const;

 private:
  int m_layers, m_heads;
  std::vector<PearsonAccumulator> m_head;   // [L*H]
  std::vector<PearsonAccumulator> m_layer;  // [L]
  std::vector<double> m_valueNormSum;       // [L*H]
  std::vector<std::int64_t> m_valueNormCount;
};

class LensAccumulator {
 public:
  /// `rows` = layers (+1 with the output row).
  LensAccumulator(int layers, bool outputRow, std::uint64_t seed);
  /// N positions: rank [R, N], entropy [R, N], kl [R, N], row-major.
  void add(std::span<const std::int64_t> rank, std::span<const double> entropy,
           std::span<const double> kl, std::int64_t positions);
  LensSummary result() const;

 private:
  LensSummary m_base;
  int m_rowCount;
  std::vector<std::int64_t> m_correct;
  std::vector<double> m_rank, m_entropy, m_kl;
};

/// The first row whose accuracy reaches half of the last row's; -1 when that is 0.
int halfAccuracyRow(const std::vector<LensSummaryRow>& rows);

/// The positions the lens summary masks in one sequence: of the real positions [0, length)
/// whose id is not in `specialIds`, round(15%) (at least one; none when there is no such
/// position), those with the smallest keys lensMaskKey(seed, sequence, position) (ties: the
/// earlier position). Ascending. Deterministic and independent of batching.
std::vector<int> lensMaskPositions(const std::int64_t* ids, int length,
                                   std::span<const std::int64_t> specialIds, std::uint64_t seed,
                                   std::int64_t sequence);
/// splitmix64(splitmix64(seed + golden * (sequence + 1)) + position), the golden ratio
/// constant 0x9E3779B97F4A7C15 (docs/analysis.md writes it out for a re-implementation).
std::uint64_t lensMaskKey(std::uint64_t seed, std::int64_t sequence, int position);

}  // namespace attnlab::analysis
