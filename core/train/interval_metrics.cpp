#include "core/train/interval_metrics.h"

#include "core/model/masked_lm.h"
#include "core/runlog/run_log_writer.h"
#include "core/runtime/gpu_info.h"
#include "core/train/train_step.h"

#include <torch/torch.h>

#include <algorithm>

namespace attnlab::core {

IntervalMetrics::IntervalMetrics(const RunConfig& config, std::vector<LoggedQuantity> quantities)
    : m_config(config),
      m_mechanisms(enabledMechanisms(config)),
      m_quantities(std::move(quantities)) {
  reset();
}

void IntervalMetrics::reset() {
  m_mlmLossSum = at::Tensor();
  m_correct = at::Tensor();
  m_predicted = at::Tensor();
  m_tokens = 0;
  m_microBatches = 0;
  m_sums.clear();
  m_start = std::chrono::steady_clock::now();
}

void IntervalMetrics::add(const StepMeasurements& m) {
  // In place after the first step: no new device tensor per step for the sums.
  auto accumulate = [](at::Tensor& sum, const at::Tensor& value) {
    if (sum.defined()) {
      sum.add_(value);
    } else {
      sum = value.clone();
    }
  };
  accumulate(m_mlmLossSum, m.mlmLossSum);
  accumulate(m_correct, m.correct);
  accumulate(m_predicted, m.predicted);
  m_lastGradNorm = m.gradNorm;
  m_lastLearningRate = m.learningRate;
  m_tokens += m.realTokens;
  m_microBatches += m.microBatches;
  for (const auto& [name, value] : m.quantitySums) accumulate(m_sums[name], value);
}

TrainingProgress IntervalMetrics::flush(std::int64_t step, MaskedLanguageModelImpl& model,
                                        RunLogWriter& log, double elapsedSeconds) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  const double predicted =
      m_predicted.defined() ? static_cast<double>(m_predicted.item<std::int64_t>()) : 0.0;
  TrainingProgress p;
  p.step = step;
  p.totalSteps = m_config.schedule.steps;
  p.loss = m_mlmLossSum.defined() ? m_mlmLossSum.item<double>() / std::max(1.0, predicted) : 0.0;
  p.accuracy = m_correct.defined()
                   ? static_cast<double>(m_correct.item<std::int64_t>()) / std::max(1.0, predicted)
                   : 0.0;
  p.learningRate = m_lastLearningRate;
  p.gradNorm = m_lastGradNorm.defined() ? m_lastGradNorm.item<double>() : 0.0;
  p.tokensPerSecond = seconds > 0 ? static_cast<double>(m_tokens) / seconds : 0.0;
  p.elapsedSeconds = elapsedSeconds;
  const c10::Device device = model.parameters().front().device();
  p.device = device.str();
  if (device.is_cuda()) p.deviceMemoryBytes = gpuMemoryUse(device.index()).reservedBytes;
  log.appendScalar("train/loss", step, p.loss);
  log.appendScalar(kTrainAccuracyScalar, step, p.accuracy);
  log.appendScalar("train/learning_rate", step, p.learningRate);
  log.appendScalar("train/grad_norm", step, p.gradNorm);
  log.appendScalar("train/tokens_per_second", step, p.tokensPerSecond);

  // The mechanisms' quantities: interval means of what the steps measured, then what is
  // read from the model at log time.
  const double micro = static_cast<double>(std::max<std::int64_t>(1, m_microBatches));
  std::map<std::string, std::vector<double>> sampled;
  for (const auto* mechanism : m_mechanisms) {
    mechanism->sample(m_config, model, step, sampled);
  }
  for (const auto& q : m_quantities) {
    std::vector<float> row;
    if (q.reduction == LoggedReduction::IntervalMean) {
      const auto it = m_sums.find(q.name);
      if (it == m_sums.end() || !it->second.defined()) continue;  // nothing measured
      auto mean = (it->second / micro).to(torch::kCPU, torch::kDouble).contiguous();
      if (q.shape == LoggedShape::Scalar) {
        log.appendScalar(q.name, step, mean.item<double>());
        continue;
      }
      mean = mean.to(torch::kFloat);
      row.assign(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel());
    } else {
      const auto it = sampled.find(q.name);
      if (it == sampled.end()) continue;
      if (q.shape == LoggedShape::Scalar) {
        log.appendScalar(q.name, step, it->second.empty() ? 0.0 : it->second.front());
        continue;
      }
      row.assign(it->second.begin(), it->second.end());
    }
    log.appendSeries(q.name, step, row);
  }
  reset();
  return p;
}

}  // namespace attnlab::core
