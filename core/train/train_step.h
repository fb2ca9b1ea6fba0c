#pragma once

// One optimiser step, fenced from everything else the trainer does (llm.c's discipline):
// forward and backward over the step's micro-batches, gradient clipping, one finiteness
// check, the AdamW update. It returns what it measured as device tensors; turning those
// into log rows, evaluations and checkpoints is the caller's business (core/train/
// interval_metrics.h, trainer.cpp), so diagnostics never add work to the step itself.

#include "core/config/run_config.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/runtime/precision.h"
#include "core/train/loss_scaler.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::core {

class AdamW;
class DistributedContext;
class GradientReducer;
class MaskedLanguageModelImpl;
class ObjectiveComposer;
struct MlmBatch;

/// What one optimiser step measured. Tensors stay on the device; nothing here forced a host
/// synchronisation except the single finiteness read.
struct StepMeasurements {
  std::int64_t step = 0;        ///< optimiser steps completed after this one (1-based)
  double learningRate = 0.0;    ///< the rate the update used
  at::Tensor loss;              ///< mean total objective over the micro-batches (double)
  at::Tensor mlmLossSum;        ///< sum over micro-batches of MLM loss x predicted (double)
  at::Tensor correct;           ///< correctly predicted selected positions (int64)
  at::Tensor predicted;         ///< selected positions (int64)
  at::Tensor gradNorm;          ///< global gradient norm before clipping
  std::int64_t realTokens = 0;  ///< non-padding tokens through forward and backward
  int microBatches = 0;
  /// The mechanisms' IntervalMean quantities summed over the micro-batches (double).
  QuantityValues quantitySums;
  /// Set when the loss or the gradient norm was not finite: the update was NOT applied and
  /// this says which quantity and its value, e.g. "training loss is nan at step 7".
  std::string nonFinite;
  /// float16 only: the gradients overflowed at this loss scale, so the update was skipped
  /// (the parameters are unchanged) and the scale halved; the run goes on.
  bool skipped = false;
  double lossScale = 1.0;  ///< the loss scale this step used (1 unless float16)
};

/// The micro-batch with global index `index`: (step * accumulation + micro) * world size +
/// rank, so rank r of W draws step*A*W + micro*W + r and the ranks together draw what one
/// process with W times the accumulation would.
using MicroBatchSource = std::function<MlmBatch(std::int64_t index)>;

/// The dropout seed of global micro-batch `index` of a run seeded `seed` (a SplitMix64 mix):
/// a micro-batch's dropout depends on the micro-batch alone, not on which rank runs it or
/// how many came before on that rank.
std::uint64_t microBatchSeed(std::uint64_t seed, std::int64_t index);

/// Runs optimiser steps on one model. Holds references: the model, objective and optimiser
/// must outlive it. All of it runs on the calling thread (LibTorch's grad mode is
/// thread-local).
class TrainStep {
 public:
  /// `distributed` (optional): the data-parallel group; gradients are summed over the ranks
  /// before clipping and the measurements summed, so every rank sees the same gradient norm,
  /// loss and finiteness verdict and stops (or steps) together.
  TrainStep(MaskedLanguageModelImpl& model, const ObjectiveComposer& objective, AdamW& optimizer,
            const RunConfig& config, c10::Device device, DistributedContext* distributed = nullptr);
  ~TrainStep();
  TrainStep(const TrainStep&) = delete;
  TrainStep& operator=(const TrainStep&) = delete;

  /// Optimiser step `step` (0-based): this rank's micro-batches of the step (see
  /// MicroBatchSource). Each micro-batch's dropout is drawn from the thread's generator
  /// seeded with microBatchSeed(run.seed, index).
  StepMeasurements run(std::int64_t step, const MicroBatchSource& batches);

  /// With several ranks, the gradient sum overlaps the last micro-batch's backward pass
  /// (core/distributed/gradient_reducer.h; the default, with its default bucket size when
  /// `bucketBytes` is 0). Off: it starts after backward (DistributedContext::sumGradients),
  /// the bench's comparison.
  void setOverlappedReduction(bool overlapped, std::int64_t bucketBytes = 0);

  /// float16's dynamic loss scale (its state goes into checkpoints: TrainingState).
  LossScaler& lossScaler() { return m_scaler; }

 private:
  /// Sums the gradients and the measurements over the ranks (one collective each).
  void reduceOverRanks(StepMeasurements& m);
  /// Forward (under autocast where the precision asks) and backward of one micro-batch,
  /// with `weight` on its MLM loss and the rest divided by `otherDivisor` (1: the total
  /// as it is); adds to `m`.
  void microStep(const MlmBatch& batch, std::int64_t step, double weight, int otherDivisor,
                 StepMeasurements& m);
  /// The finiteness read, the loss scale's update, the optimiser update.
  void finishStep(StepMeasurements& m);
  /// Seeds the generators a micro-batch's dropout draws from.
  void seedDropout(std::int64_t globalIndex) const;

  MaskedLanguageModelImpl& m_model;
  const ObjectiveComposer& m_objective;
  AdamW& m_optimizer;
  std::vector<at::Tensor> m_params;
  PrecisionPlan m_precision;
  LossScaler m_scaler;
  OptimizerConfig m_optimizerConfig;
  ScheduleConfig m_schedule;
  int m_accumulation;
  std::uint64_t m_seed;
  c10::Device m_device;
  DistributedContext* m_distributed;
  std::unique_ptr<GradientReducer> m_reducer;  ///< with several ranks, unless turned off
};

}  // namespace attnlab::core
