#include "core/train/health_stream.h"

#include "core/health/attention_spectral.h"
#include "core/model/attention_maps.h"
#include "core/model/masked_lm.h"
#include "core/runlog/run_log_schema.h"
#include "core/runlog/run_log_writer.h"
#include "core/train/attention_snapshots.h"

#include <torch/torch.h>

namespace attnlab::core {

namespace {

/// A tensor's values as the float row a series takes.
std::vector<float> row(const at::Tensor& t) {
  const auto f = t.to(torch::kCPU, torch::kFloat).contiguous();
  return std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
}

/// The massive-activation series of `health`: values, probe token (b * T + t), dimension.
std::array<std::vector<float>, 3> massiveRows(const AttentionHealth& health, std::int64_t T) {
  std::array<std::vector<float>, 3> out;
  for (const auto& layer : health.massive) {
    for (const auto& e : layer) {
      out[0].push_back(static_cast<float>(e.magnitude));
      out[1].push_back(static_cast<float>(e.sequence * T + e.position));
      out[2].push_back(static_cast<float>(e.dimension));
    }
  }
  return out;
}

}  // namespace

HealthStream::HealthStream(const RunConfig& config, const AttentionSnapshots& probe)
    : m_config(config), m_enabled(config.log.health && probe.enabled()) {
  if (!m_enabled) return;
  m_ids = probe.ids();
  m_mask = probe.mask();
  m_classes = sinkClassesOf(probe.pieces(), m_ids.size(0), m_ids.size(1));
}

bool HealthStream::due(std::int64_t step) const {
  if (!m_enabled) return false;
  const std::int64_t every =
      m_config.log.healthEvery > 0 ? m_config.log.healthEvery : m_config.train.logEvery;
  return step == 0 || step == m_config.schedule.steps || (every > 0 && step % every == 0);
}

void HealthStream::declare(RunLogSchema& schema) const {
  if (!m_enabled) return;
  const std::int64_t L = m_config.model.layers, H = m_config.model.heads, C = kSinkClasses;
  auto spec = [&](const char* name, std::vector<std::int64_t> shape) {
    TensorSeriesSpec s;
    s.name = std::string("health/") + name;
    s.innerShape = std::move(shape);
    schema.series.push_back(s);
  };
  spec("class_mass", {L, H, C});
  spec("sink_rate", {C});
  spec("sink_rate_by_layer", {L, C});
  for (const char* name : {"top_key_mass", "top_key_class", "entropy_mean", "entropy_min",
                           "collapsed_share", "logit_max", "spectral_norm"})
    spec(name, {L, H});
  for (const char* name : {"massive_value", "massive_token", "massive_dimension"})
    spec(name, {L, 3});
  for (const char* name : {"median_abs", "massive_ratio", "rank_residual", "mean_cosine"})
    spec(name, {L});
}

AttentionHealth probeHealth(MaskedLanguageModelImpl& model, const at::Tensor& ids,
                            const at::Tensor& mask, const at::Tensor& classes,
                            const HealthSettings& settings) {
  torch::NoGradGuard noGrad;
  const bool wasTraining = model.is_training();
  model.eval();
  HookRequest request;
  requestHealthHooks(request);
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput unused;
  model.encodeWith(ids, mask, options, unused);
  if (wasTraining) model.train();
  auto& cache = hooks.cache();
  const int L = model.layerCount();
  HealthBatch batch;
  takeHealthHooks(cache, L, batch);
  batch.realTokens = mask;
  batch.classes = classes;
  HealthAccumulator accumulator(settings);
  accumulator.add(batch);
  return accumulator.result();
}

void HealthStream::write(MaskedLanguageModelImpl& model, const c10::Device& device,
                         std::int64_t step, RunLogWriter& log) const {
  if (!m_enabled) return;
  HealthSettings settings;
  settings.sinkEpsilon = m_config.log.healthSinkEpsilon;
  settings.collapseNats = m_config.log.healthCollapseNats;
  settings.probabilityMaps = patternMapsOf(m_config.attention) == AttentionMaps::Probabilities;
  const auto h = probeHealth(model, m_ids.to(device), m_mask.to(device), m_classes, settings);
  auto append = [&](const char* name, const std::vector<float>& values) {
    log.appendSeries(std::string("health/") + name, step, values);
  };
  append("class_mass", row(h.classMass));
  append("sink_rate", row(h.sinkRate));
  append("sink_rate_by_layer", row(h.sinkRateByLayer));
  append("top_key_mass", row(h.topKeyMass));
  append("top_key_class", row(h.topKeyClass));
  append("entropy_mean", row(h.entropyMean));
  append("entropy_min", row(h.entropyMin));
  append("collapsed_share", row(h.collapsedShare));
  append("logit_max", row(h.logitMax));
  append("spectral_norm", row(qkSpectralNorms(model)));
  const auto massive = massiveRows(h, m_ids.size(1));
  append("massive_value", massive[0]);
  append("massive_token", massive[1]);
  append("massive_dimension", massive[2]);
  append("median_abs", row(h.medianAbs));
  append("massive_ratio", row(h.massiveRatio));
  append("rank_residual", row(h.rankResidual));
  append("mean_cosine", row(h.meanCosine));
}

}  // namespace attnlab::core
