#pragma once

// Attention health (docs/analysis.md, "Attention health"): what 2023-2025 research measures
// of attention, per layer and head, from one forward pass's hook points:
//   sinks (Xiao et al. 2023; Gu et al., ICLR 2025): the mass each key receives, averaged
//     over queries, per token class, and the sink rate (share of heads whose mean mass on a
//     class's key exceeds epsilon);
//   entropy collapse (Zhai et al., ICML 2023): row entropies, their mean and minimum, the
//     share of rows under a threshold;
//   logit growth (Dehghani et al. 2023; Wortsman et al. 2023): the largest pre-softmax logit;
//     the spectral norm of W_Q,h W_K,h^T / sqrt(d) (power iteration, attention_spectral.h);
//   massive activations (Sun et al., COLM 2024): the top |h| of each layer's residual stream
//     with its token and dimension, the median |h|, their ratio;
//   rank collapse (Dong et al. 2021; Noci et al. 2022): ||X - 1 mean(X)^T||_F / ||X||_F and
//     the mean pairwise cosine of each sequence's token vectors.
// Everything over real tokens only (padding queries, keys and rows left out). Several
// batches (an evaluation set) accumulate into one result, the same as one batch of all.

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

/// The token classes sinks are counted on (Clark et al. 2019: BERT's sinks are [SEP], [CLS]
/// and punctuation; causal models' the first position). First is the position, the others
/// the token: a [CLS] at position 0 counts in both First and Cls; Other is every real key in
/// none of the four.
enum class SinkClass { First = 0, Cls, Sep, Punctuation, Other };
inline constexpr int kSinkClasses = 5;
const char* sinkClassName(SinkClass c);  ///< "first", "cls", "sep", "punctuation", "other"

/// The class of each key of a batch [B, T] int64 (a SinkClass other than First; First is
/// added by position), from the pieces of its ids (core/tokenizer/piece_roles.h).
at::Tensor sinkClassesOf(const std::vector<std::string>& pieces, std::int64_t batch,
                         std::int64_t length);

struct HealthSettings {
  double sinkEpsilon = 0.3;   ///< Gu et al.'s epsilon (health.sink_epsilon)
  double collapseNats = 0.5;  ///< rows with entropy below this count as collapsed
  /// False for maps that are not probabilities (signed or unnormalised): each row becomes
  /// |s| / sum |s| (Gu et al.'s normalisation) before sinks and entropy.
  bool probabilityMaps = true;
};

/// One batch's hook points, per layer.
struct HealthBatch {
  std::vector<at::Tensor> pattern;   ///< [B, H, T, T]: what multiplied the values
  std::vector<at::Tensor> scores;    ///< [B, H, T, T]: pre-softmax logits, unmasked
  std::vector<at::Tensor> residual;  ///< [B, T, D]: each layer's output (resid_post)
  at::Tensor realTokens;             ///< [B, T] bool
  at::Tensor classes;                ///< [B, T] int64 SinkClass (sinkClassesOf)
};

/// A residual-stream entry: its |h| and where it is (the sequence, counted over every batch
/// accumulated, its position and the dimension).
struct MassiveEntry {
  double magnitude = 0;
  std::int64_t sequence = -1;
  std::int64_t position = -1;
  std::int64_t dimension = -1;
};

/// The result, per layer and head (float64 tensors on the CPU).
struct AttentionHealth {
  at::Tensor classMass;        ///< [L, H, C]: mean over a class's keys of their mass
  at::Tensor sinkRate;         ///< [C]: share of (layer, head) with classMass > epsilon
  at::Tensor sinkRateByLayer;  ///< [L, C]
  at::Tensor topKeyMass;       ///< [L, H]: mean over sequences of the largest key mass
  at::Tensor topKeyClass;      ///< [L, H] int64: the class that most often holds it
  at::Tensor entropyMean;      ///< [L, H] nats, over real query rows
  at::Tensor entropyMin;       ///< [L, H] nats
  at::Tensor collapsedShare;   ///< [L, H]: rows under HealthSettings::collapseNats
  at::Tensor logitMax;         ///< [L, H]: S_max over real (query, key) pairs
  std::vector<std::array<MassiveEntry, 3>> massive;  ///< per layer, largest first
  at::Tensor medianAbs;     ///< [L]: median |h| over real tokens and dimensions
  at::Tensor massiveRatio;  ///< [L]: top-1 |h| / median |h|
  at::Tensor rankResidual;  ///< [L]: mean over sequences of ||X - 1 mean^T|| / ||X||
  at::Tensor meanCosine;    ///< [L]: mean over sequences of the mean pairwise cosine
  std::int64_t sequences = 0;
  std::int64_t rows = 0;  ///< real query rows seen per head
};

/// Accumulates batches; result() any time. The median is exact: every real |h| is kept
/// (float32, L x tokens x D: 24 MB for BERT-base over 512 sequences of 128 tokens).
class HealthAccumulator {
 public:
  explicit HealthAccumulator(HealthSettings settings = {});
  void add(const HealthBatch& batch);
  AttentionHealth result() const;

 private:
  void addAttention(const HealthBatch& batch);
  void addResidual(const HealthBatch& batch);

  HealthSettings m_settings;
  std::int64_t m_sequences = 0, m_rows = 0, m_tokens = 0;
  at::Tensor m_classMassSum, m_classCount;  // [L, H, C], [C] (sequences holding the class)
  at::Tensor m_topMassSum;                  // [L, H]
  at::Tensor m_topClassVotes;               // [L, H, C]
  at::Tensor m_entropySum, m_entropyMin, m_collapsed, m_logitMax;  // [L, H]
  std::vector<std::array<MassiveEntry, 3>> m_massive;
  std::vector<at::Tensor> m_magnitudes;  // per batch [L, n * D] float32
  at::Tensor m_rankSum, m_cosineSum;     // [L]
};

/// |s| / sum_k |s| per row: a distribution from a map that is not one (Gu et al.). A row of
/// zeros (softpick can give one) stays zeros.
at::Tensor normalisedMap(const at::Tensor& map);
/// The same in place, for a tensor the caller owns (no temporaries of a large batch).
void normaliseMapInPlace(at::Tensor& map);

class HookRequest;
class ActivationCache;
/// The hook points a HealthBatch is made of (pattern, scores, differential attention's
/// second scores, resid_post).
void requestHealthHooks(HookRequest& request);
/// Moves them out of `cache` into `batch`, for `layers` layers. With differential attention
/// the scores are the elementwise larger of its two maps' logits, so S_max covers both.
void takeHealthHooks(ActivationCache& cache, int layers, HealthBatch& batch);

}  // namespace attnlab::core
