#pragma once

#include "core/config/run_config.h"
#include "core/data/blocks.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace attnlab::core {

/// One masked-language-modelling batch, on the CPU (the trainer moves it to its device).
struct MlmBatch {
  at::Tensor inputIds;          ///< [B, T] int64: blocks with the selected positions corrupted
  at::Tensor attentionMask;     ///< [B, T] bool: true = real token (incl. <s>, </s>), false = pad
  at::Tensor labels;            ///< [B, T] int64: original id where selected, -100 elsewhere
  std::int64_t realTokens = 0;  ///< positions with attentionMask true
  std::int64_t selectedTokens = 0;  ///< positions with a label (the loss's denominator)
};

/// The label of positions that are not predicted (PyTorch's cross_entropy ignore_index).
inline constexpr std::int64_t kIgnoreLabel = -100;

/// BERT's corruption: each ordinary token (id >= 5: never <pad>, <s>, </s>, <mask>, <unk>)
/// is selected with maskProbability; a selected one becomes <mask> with maskTokenShare, a
/// uniformly random ordinary id (5..V-1) with randomTokenShare, and stays as it is otherwise.
struct MaskingOptions {
  double maskProbability = 0.15;
  double maskTokenShare = 0.8;
  double randomTokenShare = 0.1;
  /// From data.mask_probability / mask_token_share / random_token_share.
  static MaskingOptions fromConfig(const DataConfig& config);
  /// Throws ConfigError (with the data.* key) when a value is out of range.
  void validate() const;
};

enum class BatchOrder {
  Shuffled,   ///< training: a seeded permutation of the blocks per epoch
  Sequential  ///< validation: blocks in order, the same batches every evaluation
};

/// Draws MLM batches from a BlockSet. batch(step) depends only on (seed, step): not on the
/// thread count, on earlier calls or on torch's random generator (it uses its own), so a
/// resumed run gets exactly the batches it would have had.
///
/// Shuffled: sample s = step*B + r (r = row) is block perm_e[s mod N] with epoch
/// e = s div N and perm_e a Fisher-Yates shuffle seeded by (seed, e); a batch that crosses
/// an epoch boundary takes its first rows from epoch e and the rest from e+1.
/// Sequential: batch k covers blocks [kB, min(kB+B, N)) for k < batchesPerEpoch() (the last
/// batch may have fewer rows); k is taken modulo batchesPerEpoch().
/// Masking of row r of batch `step` uses a generator seeded by (seed, order, step, r).
class MlmBatcher {
 public:
  MlmBatcher() = default;
  MlmBatcher(std::shared_ptr<const BlockSet> blocks, int batchSize, MaskingOptions masking,
             std::uint64_t seed, BatchOrder order);

  /// Blocks in one pass over the data (N).
  std::int64_t blocksPerEpoch() const { return m_blocks ? m_blocks->size() : 0; }
  /// ceil(N / B): batches in one pass.
  std::int64_t batchesPerEpoch() const;
  int batchSize() const { return m_batchSize; }
  int sequenceLength() const { return m_blocks ? m_blocks->sequenceLength() : 0; }
  /// The epoch of the first sample of `step` (Shuffled order).
  std::int64_t epochOfStep(std::int64_t step) const;
  const BlockSet& blocks() const { return *m_blocks; }

  /// The block indices batch `step` uses, row by row.
  std::vector<std::int64_t> blockIndices(std::int64_t step) const;
  /// The batch for `step` (>= 0). Throws DataError when there are no blocks.
  MlmBatch batch(std::int64_t step) const;

 private:
  struct PermutationCache;
  std::shared_ptr<const std::vector<std::int64_t>> permutation(std::int64_t epoch) const;

  std::shared_ptr<const BlockSet> m_blocks;
  int m_batchSize = 0;
  MaskingOptions m_masking;
  std::uint64_t m_seed = 0;
  BatchOrder m_order = BatchOrder::Shuffled;
  std::shared_ptr<PermutationCache> m_cache;
};

}  // namespace attnlab::core
