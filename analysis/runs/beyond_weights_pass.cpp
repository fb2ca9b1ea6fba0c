#include "analysis/runs/beyond_weights_pass.h"

#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <cstring>

namespace attnlab::analysis {

BeyondWeightsPass::BeyondWeightsPass(const core::AttentionInspector& inspector,
                                     const BeyondWeightsOptions& options)
    : m_options(options),
      m_layers(inspector.config().model.layers),
      m_heads(inspector.config().model.heads),
      m_seed(inspector.config().run.seed) {
  const auto& special = inspector.tokenizer().specialIds();
  m_maskId = special.mask;
  m_specialIds = {special.pad, special.bos, special.eos, special.mask, special.unk};
  // Without an MLM head the lens would read AttnLab's random head: not made, and said so.
  m_lensSkipped = options.lens && !inspector.hasMlmHead();
  if (m_lensSkipped) m_options.lens = false;
  if (options.rollout) m_rollout.emplace(m_layers);
  if (options.norms) m_norms.emplace(m_layers, m_heads);
}

BeyondWeightsPass::~BeyondWeightsPass() = default;

core::BatchRequest BeyondWeightsPass::request() const {
  core::BatchRequest r;
  r.probabilities = true;
  r.norms = m_options.norms;
  return r;
}

void BeyondWeightsPass::addBatch(core::AttentionInspector& inspector, const EvaluationBatch& batch,
                                 const core::BatchCapture& capture, std::int64_t firstSequence) {
  const auto B = static_cast<std::size_t>(batch.ids.size(0));
  const auto T = static_cast<std::size_t>(batch.ids.size(1));
  const auto L = static_cast<std::size_t>(m_layers);
  const auto H = static_cast<std::size_t>(m_heads);
  const float* probabilities = capture.probabilities.data_ptr<float>();  // [L, B, H, T, T]
  const std::size_t block = H * T * T;
  for (std::size_t b = 0; b < B; ++b) {
    const int valid = batch.roles[b].length;
    if (m_rollout) {
      m_sequence.resize(L * block);
      for (std::size_t l = 0; l < L; ++l)
        std::memcpy(m_sequence.data() + l * block, probabilities + (l * B + b) * block,
                    block * sizeof(float));
      m_rollout->addSequence({m_sequence.data(), m_layers, m_heads, static_cast<int>(T)}, valid);
    }
    if (m_norms) {
      for (std::size_t l = 0; l < L; ++l) {
        const auto& n = capture.norms.at(l);
        NormLayerView view;
        view.weights = probabilities + (l * B + b) * block;
        view.headNorms = n.headNorms.data_ptr<float>() + b * block;
        view.valueNorms = n.valueNorms.data_ptr<float>() + b * H * T;
        view.layerNorms = n.layerNorms.data_ptr<float>() + b * T * T;
        view.T = static_cast<int>(T);
        view.valid = valid;
        m_norms->addLayer(static_cast<int>(l), view);
      }
    }
  }
  if (m_options.lens) addLens(inspector, batch, firstSequence);
}

void BeyondWeightsPass::addLens(core::AttentionInspector& inspector, const EvaluationBatch& batch,
                                std::int64_t firstSequence) {
  const auto B = batch.ids.size(0);
  const auto T = batch.ids.size(1);
  auto masked = batch.ids.to(torch::kLong).contiguous().clone();
  auto* ids = masked.data_ptr<std::int64_t>();
  std::vector<std::int64_t> positions, targets;
  for (std::int64_t b = 0; b < B; ++b) {
    std::int64_t* row = ids + b * T;
    const auto chosen = lensMaskPositions(row, batch.roles[static_cast<std::size_t>(b)].length,
                                          m_specialIds, m_seed, firstSequence + b);
    for (const int p : chosen) {
      positions.push_back(b * T + p);
      targets.push_back(row[p]);
      row[p] = m_maskId;
    }
  }
  if (positions.empty()) return;
  const auto N = static_cast<std::int64_t>(positions.size());
  core::BatchRequest request;
  request.probabilities = false;
  request.lensPositions = torch::tensor(positions, torch::kLong);
  request.lensTargets = torch::tensor(targets, torch::kLong);
  const auto capture = inspector.captureBatch(masked, request);
  const auto& lens = *capture.lens;
  if (!m_lens) m_lens.emplace(m_layers, lens.outputRow, m_seed);
  const auto rank = lens.rank.to(torch::kLong).contiguous();
  const auto entropy = lens.entropy.to(torch::kDouble).contiguous();
  const auto kl = lens.klToFinal.to(torch::kDouble).contiguous();
  const auto size = static_cast<std::size_t>(rank.numel());
  m_lens->add({rank.data_ptr<std::int64_t>(), size}, {entropy.data_ptr<double>(), size},
              {kl.data_ptr<double>(), size}, N);
}

BeyondWeightsSummaries BeyondWeightsPass::result() const {
  BeyondWeightsSummaries s;
  if (m_rollout) s.rollout = m_rollout->result();
  if (m_norms) s.norms = m_norms->result();
  if (m_options.lens) {
    s.lens = m_lens ? m_lens->result() : LensAccumulator(m_layers, false, m_seed).result();
  }
  s.lensSkippedNoMlmHead = m_lensSkipped;
  return s;
}

}  // namespace attnlab::analysis
