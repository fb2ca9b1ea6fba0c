#include "core/train/train_step.h"

#include "core/data/mlm_batcher.h"
#include "core/model/masked_lm.h"
#include "core/train/adamw.h"
#include "core/train/grad_clip.h"
#include "core/train/objective_composer.h"

#include <torch/torch.h>

#include <sstream>

namespace attnlab::core {

TrainStep::TrainStep(MaskedLanguageModelImpl& model, const ObjectiveComposer& objective,
                     AdamW& optimizer, const RunConfig& config, c10::Device device)
    : m_model(model),
      m_objective(objective),
      m_optimizer(optimizer),
      m_optimizerConfig(config.optimizer),
      m_schedule(config.schedule),
      m_accumulation(config.train.gradientAccumulation),
      m_device(device) {
  for (const auto& p : model.parameters()) m_params.push_back(p);
}

StepMeasurements TrainStep::run(std::int64_t step, const MicroBatchSource& batches) {
  StepMeasurements m;
  m.learningRate = learningRateAt(step, m_optimizerConfig.learningRate, m_schedule.warmupSteps,
                                  m_schedule.steps, m_schedule.decay == LearningRateDecay::Linear);
  const auto doubles = torch::TensorOptions().dtype(torch::kDouble).device(m_device);
  const auto longs = torch::TensorOptions().dtype(torch::kLong).device(m_device);
  m.loss = torch::zeros({}, doubles);
  m.mlmLossSum = torch::zeros({}, doubles);
  m.correct = torch::zeros({}, longs);
  m.predicted = torch::zeros({}, longs);

  m_optimizer.zeroGrad();
  for (int micro = 0; micro < m_accumulation; ++micro) {
    const MlmBatch batch = batches(step * m_accumulation + micro);
    const StepOutcome out =
        m_objective.compute(m_model, batch.inputIds.to(m_device), batch.attentionMask.to(m_device),
                            batch.labels.to(m_device), step);
    (out.total / m_accumulation).backward();
    m.loss += out.total.detach().to(torch::kDouble) / m_accumulation;
    m.mlmLossSum += out.mlm.to(torch::kDouble) * out.predicted;
    m.correct += out.correct;
    m.predicted += out.predicted;
    m.realTokens += batch.realTokens;
    ++m.microBatches;
    for (const auto& [name, value] : out.quantities) {
      auto& sum = m.quantitySums[name];
      const auto v = value.to(torch::kDouble);
      sum = sum.defined() ? sum + v : v;
    }
  }
  m.gradNorm = clipGradNorm(m_params, m_optimizerConfig.clipNorm);

  // The one host read per step: a non-finite value must stop the run before the update
  // reaches the parameters, so the last good state is what remains.
  const auto finite =
      torch::stack({torch::isfinite(m.loss), torch::isfinite(m.gradNorm)}).to(torch::kCPU);
  const bool lossOk = finite[0].item<bool>();
  const bool gradOk = finite[1].item<bool>();
  m.step = step + 1;
  if (!lossOk || !gradOk) {
    std::ostringstream msg;
    msg << (lossOk ? "gradient norm" : "training loss") << " is "
        << (lossOk ? m.gradNorm.item<double>() : m.loss.item<double>()) << " at step " << m.step;
    m.nonFinite = msg.str();
    return m;
  }
  m_optimizer.step(m.learningRate);
  return m;
}

}  // namespace attnlab::core
