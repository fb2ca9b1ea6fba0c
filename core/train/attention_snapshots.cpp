#include "core/train/attention_snapshots.h"

#include "core/data/blocks.h"
#include "core/errors/error.h"
#include "core/health/attention_health.h"
#include "core/model/attention_maps.h"
#include "core/model/masked_lm.h"
#include "core/runlog/run_log_schema.h"
#include "core/runlog/run_log_writer.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace attnlab::core {

AttentionSnapshots::AttentionSnapshots(const RunConfig& config, const BlockSet* validationBlocks,
                                       const Tokenizer& tokenizer, bool asa)
    : m_config(config), m_asa(asa) {
  const int maxLength = config.data.sequenceLength;
  const auto& special = tokenizer.specialIds();
  std::vector<std::vector<std::int64_t>> rows;
  if (!config.log.snapshotSentences.empty()) {
    for (const auto& sentence : config.log.snapshotSentences) {
      std::vector<std::int64_t> row = {special.bos};
      for (const int id : tokenizer.encode(sentence)) {
        if (static_cast<int>(row.size()) >= maxLength - 1) break;
        row.push_back(id);
      }
      row.push_back(special.eos);
      rows.push_back(std::move(row));
    }
  } else if (validationBlocks != nullptr && validationBlocks->size() > 0) {
    // Blocks chosen with the run's seed, so every run of a config probes the same text.
    std::vector<std::int64_t> order(static_cast<size_t>(validationBlocks->size()));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(config.run.seed ^ 0x5EED5EEDull);
    std::shuffle(order.begin(), order.end(), rng);
    const auto count =
        std::min<std::int64_t>(config.log.snapshotSequences, validationBlocks->size());
    for (std::int64_t i = 0; i < count; ++i) {
      std::vector<std::int64_t> block(static_cast<size_t>(validationBlocks->sequenceLength()));
      const int real = validationBlocks->fill(order[static_cast<size_t>(i)], block);
      block.resize(static_cast<size_t>(real));
      rows.push_back(std::move(block));
    }
  }
  if (rows.empty()) return;
  // 1-D convolved attention only runs at the length its filters were built for.
  std::int64_t length = 0;
  for (const auto& r : rows)
    length = std::max<std::int64_t>(length, static_cast<std::int64_t>(r.size()));
  if (config.attention.conv == ConvAttention::OneD) length = maxLength;
  m_ids = torch::full({static_cast<std::int64_t>(rows.size()), length}, special.pad, torch::kLong);
  for (size_t b = 0; b < rows.size(); ++b) {
    for (size_t t = 0; t < rows[b].size(); ++t) m_ids[b][t] = rows[b][t];
  }
  m_mask = m_ids.ne(special.pad);
  const auto* ids = m_ids.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < m_ids.numel(); ++i) {
    m_pieces.push_back(tokenizer.displayPiece(static_cast<int>(ids[i])));
  }
}

bool AttentionSnapshots::due(std::int64_t step) const {
  if (!enabled() || step <= 0) return false;
  if (m_config.log.snapshotLogSpaced && (step & (step - 1)) == 0) return true;
  if (m_config.log.snapshotEvery > 0 && step % m_config.log.snapshotEvery == 0) return true;
  return step == m_config.schedule.steps;
}

void AttentionSnapshots::declare(RunLogSchema& schema) const {
  if (!enabled()) return;
  const std::int64_t L = m_config.model.layers, B = sequences(), H = m_config.model.heads,
                     T = length();
  auto spec = [&](const std::string& name, std::vector<std::int64_t> shape) {
    TensorSeriesSpec s;
    s.name = name;
    s.innerShape = std::move(shape);
    s.type = hdf5::ElementType::Float16;
    s.chunkRows = 1;  // one snapshot per chunk: readers fetch one step at a time
    s.gzipLevel = 4;
    schema.series.push_back(s);
  };
  spec("snapshots/probabilities", {L, B, H, T, T});
  if (attentionMapsOf(m_config.attention) != AttentionMaps::Probabilities)
    spec("snapshots/weights", {L, B, H, T, T});
  if (m_config.log.snapshotScores) {
    spec("snapshots/scores", {L, B, H, T, T});
    if (m_asa) spec("snapshots/asa_masks", {L, B, T, T});
  }
  schema.probeSequences = B;
  schema.probeLength = T;
  schema.probeIds.assign(m_ids.data_ptr<std::int64_t>(),
                         m_ids.data_ptr<std::int64_t>() + m_ids.numel());
  schema.probePieces = m_pieces;
}

void AttentionSnapshots::write(MaskedLanguageModelImpl& model, const c10::Device& device,
                               std::int64_t step, RunLogWriter& log) const {
  if (!enabled()) return;
  torch::NoGradGuard noGrad;
  const bool wasTraining = model.is_training();
  model.eval();
  HookRequest request;
  request.capture("blocks.*.attn.probs");
  if (m_config.log.snapshotScores) request.capture("blocks.*.attn.scores");
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput unused;
  const auto ids = m_ids.to(device);
  const auto mask = m_mask.to(device);
  model.encodeWith(ids, mask, options, unused);
  const int layers = model.layerCount();
  auto toRow = [](const std::vector<at::Tensor>& perLayer) {
    auto stacked = torch::stack(perLayer).to(torch::kCPU, torch::kFloat).contiguous();
    return std::vector<float>(stacked.data_ptr<float>(),
                              stacked.data_ptr<float>() + stacked.numel());
  };
  auto weights = hooks.cache().layers("attn.probs", layers);
  if (attentionMapsOf(m_config.attention) != AttentionMaps::Probabilities) {
    // Maps that are not probabilities: the raw weights (signed for differential attention)
    // in snapshots/weights, and |s| / sum |s| per row where every analysis reads
    // probabilities (docs/run-log.md).
    log.appendSeries("snapshots/weights", step, toRow(weights));
    for (auto& w : weights) w = normalisedMap(w.to(torch::kFloat));
  }
  log.appendSeries("snapshots/probabilities", step, toRow(weights));
  if (m_config.log.snapshotScores) {
    // Masked logits of -10000 would dominate a float16 colour scale; scores are unmasked.
    log.appendSeries("snapshots/scores", step, toRow(hooks.cache().layers("attn.scores", layers)));
    if (m_asa && model.hasAdversaries()) {
      HookRequest keepMasks;
      keepMasks.capture("blocks.*.asa.keep");
      HookSession adversarialHooks(keepMasks);
      ForwardOptions adversarial;
      adversarial.adversarial = true;
      adversarial.hooks = &adversarialHooks;
      MlmOutput adv;
      model.encodeWith(ids, mask, adversarial, adv);
      log.appendSeries("snapshots/asa_masks", step,
                       toRow(adversarialHooks.cache().layers("asa.keep", layers)));
    }
  }
  if (wasTraining) model.train();
}

}  // namespace attnlab::core
