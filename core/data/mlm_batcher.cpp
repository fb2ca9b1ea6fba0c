#include "core/data/mlm_batcher.h"

#include "core/data/hashing.h"
#include "core/errors/error.h"

#include <torch/torch.h>

#include <algorithm>
#include <mutex>
#include <numeric>

namespace attnlab::core {

namespace {

// Stream tags keep the permutation, training masking and validation masking independent
// even when they share a seed and a step number.
constexpr std::uint64_t kPermutationTag = 0x7065726d75746531ULL;  // "permute1"
constexpr std::uint64_t kTrainMaskTag = 0x747261696e6d736bULL;    // "trainmsk"
constexpr std::uint64_t kValidMaskTag = 0x76616c69646d736bULL;    // "validmsk"
constexpr int kFirstOrdinaryId = 5;  // ids 0..4 are <pad> <s> </s> <mask> <unk>

}  // namespace

MaskingOptions MaskingOptions::fromConfig(const DataConfig& config) {
  MaskingOptions m;
  m.maskProbability = config.maskProbability;
  m.maskTokenShare = config.maskTokenShare;
  m.randomTokenShare = config.randomTokenShare;
  m.validate();
  return m;
}

void MaskingOptions::validate() const {
  if (!(maskProbability > 0.0 && maskProbability <= 1.0)) {
    throw ConfigError("data.mask_probability",
                      "must be in (0, 1], got " + std::to_string(maskProbability));
  }
  if (!(maskTokenShare >= 0.0 && maskTokenShare <= 1.0)) {
    throw ConfigError("data.mask_token_share",
                      "must be in [0, 1], got " + std::to_string(maskTokenShare));
  }
  if (!(randomTokenShare >= 0.0 && randomTokenShare <= 1.0)) {
    throw ConfigError("data.random_token_share",
                      "must be in [0, 1], got " + std::to_string(randomTokenShare));
  }
  if (maskTokenShare + randomTokenShare > 1.0 + 1e-12) {
    throw ConfigError("data.random_token_share",
                      "data.mask_token_share + data.random_token_share must not exceed 1 (got " +
                          std::to_string(maskTokenShare + randomTokenShare) + ")");
  }
}

struct MlmBatcher::PermutationCache {
  std::mutex mutex;
  std::int64_t epoch = -1;
  std::shared_ptr<const std::vector<std::int64_t>> order;
};

MlmBatcher::MlmBatcher(std::shared_ptr<const BlockSet> blocks, int batchSize,
                       MaskingOptions masking, std::uint64_t seed, BatchOrder order)
    : m_blocks(std::move(blocks)),
      m_batchSize(batchSize),
      m_masking(masking),
      m_seed(seed),
      m_order(order),
      m_cache(std::make_shared<PermutationCache>()) {
  if (!m_blocks) throw DataError("batcher", "no block set given");
  if (batchSize < 1) {
    throw ConfigError("train.batch_size", "must be at least 1, got " + std::to_string(batchSize));
  }
  m_masking.validate();
  if (m_blocks->vocabSize() <= kFirstOrdinaryId) {
    throw DataError("tokenizer", "the vocabulary has no ordinary pieces to mask (size " +
                                     std::to_string(m_blocks->vocabSize()) + ")");
  }
}

std::int64_t MlmBatcher::batchesPerEpoch() const {
  const std::int64_t n = blocksPerEpoch();
  return m_batchSize > 0 ? (n + m_batchSize - 1) / m_batchSize : 0;
}

std::int64_t MlmBatcher::epochOfStep(std::int64_t step) const {
  const std::int64_t n = blocksPerEpoch();
  return n > 0 ? step * m_batchSize / n : 0;
}

std::shared_ptr<const std::vector<std::int64_t>> MlmBatcher::permutation(std::int64_t epoch) const {
  std::lock_guard lock(m_cache->mutex);
  if (m_cache->epoch == epoch && m_cache->order) return m_cache->order;
  auto order =
      std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(blocksPerEpoch()));
  std::iota(order->begin(), order->end(), std::int64_t{0});
  SplitMix64 rng(mixSeed(mixSeed(m_seed, kPermutationTag), static_cast<std::uint64_t>(epoch)));
  for (std::size_t i = order->size(); i > 1; --i) {
    std::swap((*order)[i - 1], (*order)[rng.below(i)]);
  }
  m_cache->epoch = epoch;
  m_cache->order = order;
  return order;
}

std::vector<std::int64_t> MlmBatcher::blockIndices(std::int64_t step) const {
  const std::int64_t n = blocksPerEpoch();
  if (n == 0) {
    throw DataError("batcher", "there are no blocks to draw batches from (split too small?)");
  }
  if (step < 0) throw DataError("batcher", "negative step " + std::to_string(step));
  std::vector<std::int64_t> rows;
  if (m_order == BatchOrder::Sequential) {
    const std::int64_t k = step % batchesPerEpoch();
    const std::int64_t end = std::min(n, (k + 1) * m_batchSize);
    for (std::int64_t b = k * m_batchSize; b < end; ++b) rows.push_back(b);
    return rows;
  }
  std::shared_ptr<const std::vector<std::int64_t>> perm;
  for (std::int64_t r = 0; r < m_batchSize; ++r) {
    const std::int64_t sample = step * m_batchSize + r;
    const std::int64_t epoch = sample / n;
    if (!perm || r == 0 || sample % n == 0) perm = permutation(epoch);
    rows.push_back((*perm)[static_cast<std::size_t>(sample % n)]);
  }
  return rows;
}

MlmBatch MlmBatcher::batch(std::int64_t step) const {
  const std::vector<std::int64_t> rows = blockIndices(step);
  const auto B = static_cast<std::int64_t>(rows.size());
  const std::int64_t T = m_blocks->sequenceLength();
  const SpecialTokenIds& sp = m_blocks->specials();
  const auto ordinaryCount = static_cast<std::uint64_t>(m_blocks->vocabSize() - kFirstOrdinaryId);
  const std::uint64_t tag = m_order == BatchOrder::Shuffled ? kTrainMaskTag : kValidMaskTag;
  const std::int64_t stepKey = m_order == BatchOrder::Sequential ? step % batchesPerEpoch() : step;

  MlmBatch out;
  out.inputIds = torch::empty({B, T}, torch::kInt64);
  out.attentionMask = torch::empty({B, T}, torch::kBool);
  out.labels = torch::full({B, T}, kIgnoreLabel, torch::kInt64);
  auto* ids = out.inputIds.data_ptr<std::int64_t>();
  auto* mask = out.attentionMask.data_ptr<bool>();
  auto* labels = out.labels.data_ptr<std::int64_t>();
  const double pSelect = m_masking.maskProbability;
  const double pMask = m_masking.maskTokenShare;
  const double pMaskOrRandom = m_masking.maskTokenShare + m_masking.randomTokenShare;

  std::vector<std::int64_t> candidates;
  for (std::int64_t r = 0; r < B; ++r) {
    std::int64_t* row = ids + r * T;
    std::int64_t* rowLabels = labels + r * T;
    const int real = m_blocks->fill(rows[static_cast<std::size_t>(r)],
                                    std::span<std::int64_t>(row, static_cast<std::size_t>(T)));
    out.realTokens += real;
    for (std::int64_t t = 0; t < T; ++t) mask[r * T + t] = row[t] != sp.pad;

    SplitMix64 rng(mixSeed(mixSeed(mixSeed(m_seed, tag), static_cast<std::uint64_t>(stepKey)),
                           static_cast<std::uint64_t>(r)));
    auto corrupt = [&](std::int64_t t) {
      rowLabels[t] = row[t];
      const double u = rng.uniform();
      if (u < pMask) {
        row[t] = sp.mask;
      } else if (u < pMaskOrRandom) {
        row[t] = kFirstOrdinaryId + static_cast<std::int64_t>(rng.below(ordinaryCount));
      }
      ++out.selectedTokens;
    };
    candidates.clear();
    std::int64_t selected = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      if (row[t] < kFirstOrdinaryId) continue;  // specials (and padding) are never selected
      candidates.push_back(t);
      if (rng.uniform() < pSelect) {
        corrupt(t);
        ++selected;
      }
    }
    // Every sequence contributes to the loss: a row without a selection gets one.
    if (selected == 0 && !candidates.empty()) {
      corrupt(candidates[static_cast<std::size_t>(rng.below(candidates.size()))]);
    }
  }
  return out;
}

}  // namespace attnlab::core
