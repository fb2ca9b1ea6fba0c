#include "core/train/train_step.h"

#include "core/data/mlm_batcher.h"
#include "core/distributed/distributed_context.h"
#include "core/distributed/gradient_reducer.h"
#include "core/model/masked_lm.h"
#include "core/runtime/engine_random.h"
#include "core/runtime/torch_compat.h"
#include "core/train/adamw.h"
#include "core/train/grad_clip.h"
#include "core/train/objective_composer.h"

#include <torch/torch.h>

#include <ATen/Context.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace attnlab::core {

std::uint64_t microBatchSeed(std::uint64_t seed, std::int64_t index) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

TrainStep::TrainStep(MaskedLanguageModelImpl& model, const ObjectiveComposer& objective,
                     AdamW& optimizer, const RunConfig& config, c10::Device device,
                     DistributedContext* distributed)
    : m_model(model),
      m_objective(objective),
      m_optimizer(optimizer),
      m_precision(applyPrecision(config.train.precision, device)),
      m_optimizerConfig(config.optimizer),
      m_schedule(config.schedule),
      m_accumulation(config.train.gradientAccumulation),
      m_seed(static_cast<std::uint64_t>(config.run.seed)),
      m_device(device),
      m_distributed(distributed && distributed->worldSize() > 1 ? distributed : nullptr) {
  for (const auto& p : model.parameters()) m_params.push_back(p);
  setOverlappedReduction(true);
}

TrainStep::~TrainStep() = default;

void TrainStep::setOverlappedReduction(bool overlapped, std::int64_t bucketBytes) {
  m_reducer.reset();
  // Hooks go on parameters that require a gradient; with a frozen one the sum stays after
  // backward (sumGradients), which handles any parameter.
  const bool allTrained = std::all_of(m_params.begin(), m_params.end(),
                                      [](const at::Tensor& p) { return p.requires_grad(); });
  if (overlapped && m_distributed && allTrained) {
    m_reducer = std::make_unique<GradientReducer>(
        *m_distributed, m_params,
        bucketBytes > 0 ? bucketBytes : GradientReducer::kDefaultBucketBytes);
  }
}

namespace {
/// A batch tensor on the step's device. To a GPU it goes from page-locked memory without
/// blocking the host, so the copy overlaps the work already queued; on the CPU it is itself.
at::Tensor onDevice(const at::Tensor& t, c10::Device device) {
  if (!device.is_cuda()) return t.to(device);
  return t.pin_memory().to(device, /*non_blocking=*/true);
}
}  // namespace

void TrainStep::seedDropout(std::int64_t globalIndex) const {
  const std::uint64_t seed = microBatchSeed(m_seed, globalIndex);
  {
    at::Generator generator = threadGenerator();
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_current_seed(seed);
  }
  if (m_device.is_cuda()) {
    // GPU dropout (and the fused kernel's) draws from the device's default generator: seeded
    // per micro-batch as the CPU's, so a resumed run draws what the uninterrupted one did.
    at::Generator gpu = at::globalContext().defaultGenerator(m_device);
    std::lock_guard<std::mutex> lock(gpu.mutex());
    gpu.set_current_seed(seed);
  }
}

void TrainStep::microStep(const MlmBatch& batch, std::int64_t step, double weight, int otherDivisor,
                          StepMeasurements& m) {
  std::optional<torch_compat::AutocastScope> autocast;
  if (m_precision.autocast) autocast.emplace(m_device.type(), m_precision.autocastType);
  const BatchPadding padding =
      batch.realTokens == batch.inputIds.numel() ? BatchPadding::None : BatchPadding::Some;
  const StepOutcome out = m_objective.compute(m_model, onDevice(batch.inputIds, m_device),
                                              onDevice(batch.attentionMask, m_device),
                                              onDevice(batch.labels, m_device), step, padding);
  autocast.reset();  // backward runs outside autocast, in the types the forward chose
  at::Tensor objective =
      otherDivisor == 1 ? out.total : out.mlm * weight + (out.total - out.mlm) / otherDivisor;
  if (m_precision.lossScaling) objective = objective * m_scaler.scale();
  objective.backward();
  m.loss += out.total.detach().to(torch::kDouble) / m_accumulation;  // logged: the mean
  m.mlmLossSum += out.mlm.detach().to(torch::kDouble) * out.predicted;
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

void TrainStep::finishStep(StepMeasurements& m) {
  m.lossScale = m_precision.lossScaling ? m_scaler.scale() : 1.0;
  if (m_precision.lossScaling) {
    torch::NoGradGuard noGrad;
    std::vector<at::Tensor> grads;
    for (auto& p : m_params)
      if (p.grad().defined()) grads.push_back(p.grad());
    if (!grads.empty()) at::_foreach_mul_(grads, 1.0 / m.lossScale);
  }
  m.gradNorm = clipGradNorm(m_params, m_optimizerConfig.clipNorm);

  // The one host read per step: a non-finite value must stop the run before the update
  // reaches the parameters, so the last good state is what remains.
  const auto finite =
      torch::stack({torch::isfinite(m.loss), torch::isfinite(m.gradNorm)}).to(torch::kCPU);
  const bool lossOk = finite[0].item<bool>();
  const bool gradOk = finite[1].item<bool>();
  if (m_precision.lossScaling) {
    m_scaler.update(gradOk);
    if (lossOk && !gradOk) {  // float16 overflow: skip this update, go on at half the scale
      m.skipped = true;
      return;
    }
  }
  if (!lossOk || !gradOk) {
    std::ostringstream msg;
    msg << (lossOk ? "gradient norm" : "training loss") << " is "
        << (lossOk ? m.gradNorm.item<double>() : m.loss.item<double>()) << " at step " << m.step;
    m.nonFinite = msg.str();
    return;
  }
  m_optimizer.step(m.learningRate);
}

void TrainStep::reduceOverRanks(StepMeasurements& m) {
  if (m_reducer)
    m_reducer->finish();
  else
    m_distributed->sumGradients(m_params);
  // One collective for every measurement: [loss, MLM loss sum, correct, predicted, tokens,
  // micro-batches, quantities...] in double (counts are exact well past any run's size).
  std::vector<at::Tensor> parts = {m.loss.reshape({1}), m.mlmLossSum.reshape({1}),
                                   m.correct.to(torch::kDouble).reshape({1}),
                                   m.predicted.to(torch::kDouble).reshape({1})};
  const auto doubles = torch::TensorOptions().dtype(torch::kDouble).device(m_device);
  parts.push_back(torch::tensor(
      {static_cast<double>(m.realTokens), static_cast<double>(m.microBatches)}, doubles));
  for (const auto& [name, value] : m.quantitySums) parts.push_back(value.reshape({-1}));
  at::Tensor flat = torch::cat(parts).to(torch::kCPU).contiguous();
  m_distributed->sum(flat);
  // The counts are read on the host copy the collective already made, before the move back.
  const auto host = flat.accessor<double, 1>();
  m.realTokens = static_cast<std::int64_t>(host[4]);
  m.microBatches = static_cast<int>(host[5]);
  flat = flat.to(m_device);
  const double world = m_distributed->worldSize();
  m.loss = flat[0] / world;  // each rank's is a mean over its micro-batches
  m.mlmLossSum = flat[1];
  m.correct = flat[2].to(torch::kLong);
  m.predicted = flat[3].to(torch::kLong);
  std::int64_t offset = 6;
  for (auto& [name, value] : m.quantitySums) {
    const std::int64_t n = value.numel();
    value = flat.narrow(0, offset, n).view(value.sizes());
    offset += n;
  }
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

  const int world = m_distributed ? m_distributed->worldSize() : 1;
  const int rank = m_distributed ? m_distributed->rank() : 0;
  m_optimizer.zeroGrad();
  // The step's micro-batches first: the MLM loss of a step with several micro-batches (here
  // and on the other ranks) is normalised by the step's whole count of predicted tokens, so
  // a step over A x W micro-batches has the gradient of one batch of them all, whatever
  // their share of masked tokens; the mechanisms' terms are averaged over the micro-batches.
  const int microBatches = m_accumulation * world;
  // Rank r of W takes global micro-batch (step x A + i) x W + r: together the ranks take the
  // micro-batches one process with accumulation A x W would.
  const auto globalIndex = [&](int i) { return (step * m_accumulation + i) * world + rank; };
  std::vector<MlmBatch> micro(static_cast<std::size_t>(m_accumulation));
  double stepPredicted = 0;
  for (int i = 0; i < m_accumulation; ++i) {
    micro[static_cast<std::size_t>(i)] = batches(globalIndex(i));
    stepPredicted += static_cast<double>(micro[static_cast<std::size_t>(i)].selectedTokens);
  }
  // The batchers count every micro-batch's predicted tokens (at least one per sequence);
  // a source that leaves the count at 0 would silently drop the MLM gradient below.
  if (microBatches > 1 && stepPredicted <= 0)
    throw std::logic_error(
        "TrainStep: the micro-batches of a step of several report no predicted tokens "
        "(MlmBatch::selectedTokens unset by the batch source)");
  if (m_distributed) {
    at::Tensor count = torch::tensor({stepPredicted}, torch::kDouble);
    m_distributed->sum(count);
    stepPredicted = count.item<double>();
  }
  for (int i = 0; i < m_accumulation; ++i) {
    seedDropout(globalIndex(i));
    if (m_reducer && i + 1 == m_accumulation) m_reducer->arm();  // its backward overlaps the sum
    const MlmBatch& batch = micro[static_cast<std::size_t>(i)];
    if (microBatches == 1)
      microStep(batch, step, 1.0, 1, m);
    else
      microStep(batch, step, static_cast<double>(batch.selectedTokens) / stepPredicted,
                microBatches, m);
  }
  if (m_distributed) reduceOverRanks(m);
  m.step = step + 1;
  finishStep(m);
  return m;
}

}  // namespace attnlab::core
