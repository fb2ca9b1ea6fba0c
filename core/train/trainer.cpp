#include "core/train/trainer.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/data/data_files.h"
#include "core/data/mlm_data.h"
#include "core/errors/error.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/model/masked_lm.h"
#include "core/runlog/run_log_writer.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/device.h"
#include "core/train/adamw.h"
#include "core/train/attention_snapshots.h"
#include "core/train/evaluation.h"
#include "core/train/interval_metrics.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"
#include "core/train/training_state.h"

#include <torch/torch.h>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void ensureWritableDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw RunLogError(dir.string(), "cannot create the run directory: " + ec.message());
  const fs::path probe = dir / ".attnlab-write-probe";
  {
    std::ofstream out(probe);
    out << "probe";
    if (!out) {
      throw RunLogError(dir.string(),
                        "the run directory is not writable (check permissions "
                        "and free space)");
    }
  }
  fs::remove(probe, ec);
}

/// Sends events to the observer, when there is one.
struct Events {
  TrainingObserver* observer;
  void send(const TrainingEvent& e) const {
    if (observer != nullptr) observer->onEvent(e);
  }
  void run(std::int64_t step, std::string kind, std::string message) const {
    send(MilestoneEvent{step, std::move(kind), std::move(message)});
  }
};

std::string describeData(const MlmData& data, double seconds) {
  std::ostringstream msg;
  msg << "corpus: " << data.corpus.stats.linesKept << " lines, " << data.corpus.stats.words
      << " words";
  if (data.corpus.stats.linesSkipped > 0) {
    msg << ", " << data.corpus.stats.linesSkipped << " lines skipped";
    for (const auto& issue : data.corpus.issues) {
      msg << "\n  skipped " << issue.where() << ": " << issue.reason;
    }
  }
  msg << "; tokenizer " << data.tokenizer.tokenizer.vocabSize() << " pieces ("
      << (data.tokenizer.trained ? "trained" : "reused") << "); " << data.store.tokenCount()
      << " tokens, " << data.train.blocksPerEpoch() << " training and "
      << data.validation.blocksPerEpoch() << " validation blocks (" << std::fixed
      << std::setprecision(1) << seconds << " s)";
  return msg.str();
}

/// Everything the run log will ever hold, declared before SWMR writing starts: the default
/// scalars, the mechanisms' quantities, the snapshots.
RunLogSchema declareRunLog(const RunConfig& c, const std::string& configToml,
                           const SentencePieceTokenizer& tokenizer,
                           const std::vector<LoggedQuantity>& quantities,
                           const AttentionSnapshots& snapshots) {
  RunLogSchema schema;
  schema.runName = c.run.name;
  schema.configToml = configToml;
  schema.configJson = toJson(c);
  for (int id = 0; id < tokenizer.vocabSize(); ++id) {
    schema.tokenizerPieces.push_back(tokenizer.idToPiece(id));
  }
  schema.scalarNames = RunLogSchema::defaultScalarNames();
  schema.scalarNames.push_back(kTrainAccuracyScalar);
  for (const auto& q : quantities) {
    if (q.shape == LoggedShape::Scalar) {
      schema.scalarNames.push_back(q.name);
    } else {
      TensorSeriesSpec spec;
      spec.name = q.name;
      spec.innerShape = innerShapeOf(q.shape, c.model.layers, c.model.heads);
      schema.series.push_back(spec);
    }
  }
  snapshots.declare(schema);
  return schema;
}

}  // namespace

fs::path runLogPath(const fs::path& runDir) {
  return runDir / "run.h5";
}

Trainer::Trainer(RunConfig config, fs::path runDir, TrainingObserver* observer)
    : m_config(std::move(config)), m_runDir(std::move(runDir)), m_observer(observer) {}

Trainer::~Trainer() = default;

TrainingSummary Trainer::run(const std::atomic<bool>& stop) {
  TrainingControl control;
  control.linkStopFlag(&stop);
  return run(control);
}

TrainingSummary Trainer::run(TrainingControl& control) {
  const RunConfig& c = m_config;
  validateRunConfig(c);
  const Events events{m_observer};
  TrainingSummary summary;

  ensureWritableDirectory(m_runDir);
  const int threads = configureIntraOpThreads(c.train.threads);
  const c10::Device device = resolveDevice(c.train.device);
  events.run(0, "setup",
             "run " + c.run.name + " in " + m_runDir.string() + " on " + device.str() + ", " +
                 std::to_string(threads) + " thread(s)");

  // 1. Resume decision first, so a shape mismatch is reported before minutes of data work.
  CheckpointStore checkpoints(m_runDir, c.train.keepLast, c.train.keepBest);
  for (const auto& leftover : checkpoints.scan().leftovers) {
    events.run(0, "note", "ignoring an interrupted checkpoint write: " + leftover.string());
  }
  std::optional<CheckpointData> resume;
  if (const auto latest = checkpoints.latest()) {
    resume = CheckpointStore::load(latest->path);
    events.run(
        resume->step, "note",
        "resuming from " + latest->path.string() + " (step " + std::to_string(resume->step) + ")");
  }

  // 2. Data: corpus, tokenizer, token store, batchers (a stop is honoured between phases).
  const auto dataStart = std::chrono::steady_clock::now();
  std::optional<MlmData> prepared;
  try {
    prepared.emplace(
        prepareMlmData(c, m_runDir, threads, [&](const std::string& phase, int done, int total) {
          events.send(PhaseEvent{"preparing data: " + phase, done, total, {}});
          return !control.stopRequested();
        }));
  } catch (const Cancelled& e) {
    events.run(0, "stopped", std::string("stopped during ") + e.where());
    summary.stopped = true;
    summary.startStep = summary.finalStep = resume ? resume->step : 0;
    return summary;
  }
  MlmData& data = *prepared;
  events.run(0, "data", describeData(data, secondsSince(dataStart)));
  if (data.train.blocksPerEpoch() == 0) {
    throw DataError("corpus", "the corpus yields no training blocks of data.sequence_length = " +
                                  std::to_string(c.data.sequenceLength) + " tokens");
  }
  const auto& tokenizer = data.tokenizer.tokenizer;

  // 3. Model, objective and optimiser; the seed fixes initialisation and dropout.
  torch::manual_seed(c.run.seed);
  MaskedLanguageModel model(c.model, c.attention, c.data.sequenceLength, tokenizer.vocabSize(),
                            tokenizer.specialIds().pad);
  const ObjectiveComposer objective(c, guidanceTokensFor(tokenizer));
  const AttentionSnapshots snapshots(
      c, data.validation.blocksPerEpoch() > 0 ? &data.validation.blocks() : nullptr, tokenizer,
      c.attention.asa.enabled);
  model->to(device);
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> named;
  for (const auto& p : model->named_parameters()) named.emplace_back(p.key(), p.value());
  AdamW optimizer(named,
                  {c.optimizer.beta1, c.optimizer.beta2, c.optimizer.eps, c.optimizer.weightDecay});
  TrainingState state(named, optimizer, c);
  std::int64_t step = 0;
  if (resume) {
    std::string note;
    step = state.restore(*resume, note);
    if (!note.empty()) events.run(step, "note", "note: " + note);
  }
  const std::int64_t startStep = step;
  summary.startStep = startStep;

  // 4. The run log.
  std::vector<LoggedQuantity> quantities = loggedQuantities(c);
  if (objective.addsTerms()) {
    quantities.push_back({kTotalLossScalar, LoggedShape::Scalar, LoggedReduction::IntervalMean,
                          "loss", "the whole objective: MLM plus the mechanisms' terms"});
  }
  const std::string configToml = toToml(c);
  writeFileAtomically(m_runDir / "config.toml", configToml);
  const fs::path logPath = runLogPath(m_runDir);
  const bool logExists = fs::exists(logPath);
  RunLogWriter log(logPath.string(), declareRunLog(c, configToml, tokenizer, quantities, snapshots),
                   c.log.flushSeconds, /*resume=*/logExists,
                   logExists ? std::optional<std::int64_t>(startStep) : std::nullopt);
  summary.runLog = logPath;
  log.addEvent(startStep, resume ? "resume" : "start",
               resume ? "resumed from " + resume->path.string() : "training started");
  events.run(startStep, resume ? "resume" : "start",
             resume ? "resumed from " + resume->path.string() : "training started");
  const std::string variants = describeMechanisms(c);
  log.addEvent(startStep, "variants", variants);
  events.run(startStep, "variants", variants);
  if (startStep == 0) snapshots.write(*model, device, 0, log);

  // The bookkeeping around the step: evaluation and checkpoints.
  std::optional<double> lastEvalLoss;
  std::int64_t lastEvalStep = -1;
  auto evaluate = [&](std::int64_t at) {
    const auto result = evaluateMlm(*model, data.validation, c.train.evalBatches, device, &control);
    if (!result) return;
    lastEvalLoss = result->loss;
    lastEvalStep = at;
    log.appendScalar("eval/loss", at, result->loss);
    log.appendScalar("eval/accuracy", at, result->accuracy);
    events.send(EvaluationEvent{at, c.schedule.steps, result->loss, result->accuracy});
  };
  auto saveCheckpoint = [&](std::int64_t at) {
    const std::optional<double> valLoss =
        lastEvalStep == at ? lastEvalLoss : std::optional<double>();
    summary.lastCheckpoint = state.save(checkpoints, at, valLoss, data.tokenizer.modelPath);
    log.addCheckpoint(at, summary.lastCheckpoint.string(), valLoss);
    events.send(CheckpointEvent{at, summary.lastCheckpoint, valLoss});
  };
  auto due = [&](std::int64_t every) { return every > 0 && step % every == 0; };

  // 5. The loop: the fenced step, then what reads its results.
  TrainStep trainStep(*model, objective, optimizer, c, device);
  IntervalMetrics interval(c, quantities);
  const MicroBatchSource batches = [&](std::int64_t index) { return data.train.batch(index); };
  const auto trainStart = std::chrono::steady_clock::now();
  bool checkpointed = resume.has_value();
  while (step < c.schedule.steps) {
    if (control.pauseRequested() && !control.stopRequested()) {
      log.addEvent(step, "paused", "paused after step " + std::to_string(step));
      events.run(step, "paused", "paused after step " + std::to_string(step));
      control.waitWhilePaused();
      if (!control.stopRequested()) {
        log.addEvent(step, "unpaused", "training goes on");
        events.run(step, "unpaused", "training goes on");
      }
    }
    if (control.stopRequested()) {
      summary.stopped = true;
      break;
    }
    const StepMeasurements measured = trainStep.run(step, batches);
    if (!measured.nonFinite.empty()) {
      const std::string message =
          measured.nonFinite + "; the run stopped without applying this update" +
          (summary.lastCheckpoint.empty() && !resume ? "" : "; the last good checkpoint is kept");
      log.addEvent(measured.step, "non_finite", message);
      log.close();
      throw TrainingError("step " + std::to_string(measured.step), message);
    }
    step = measured.step;
    checkpointed = false;
    interval.add(measured);

    if (due(c.train.logEvery) || step == c.schedule.steps) {
      events.send(interval.flush(step, *model, log, secondsSince(trainStart)));
    }
    if (snapshots.due(step)) snapshots.write(*model, device, step, log);
    if (due(c.train.evalEvery) || (c.train.evalEvery > 0 && step == c.schedule.steps)) {
      evaluate(step);
    }
    const bool asked = control.takeCheckpointRequest();
    if ((due(c.train.checkpointEvery) || asked) && step != c.schedule.steps) {
      saveCheckpoint(step);
      checkpointed = true;
    }
  }

  if (!checkpointed && step > startStep) saveCheckpoint(step);
  if (summary.stopped) {
    log.addEvent(step, "stopped", "stopped on request after step " + std::to_string(step));
    events.run(step, "stopped",
               "stopped after step " + std::to_string(step) + "; run the same command to resume");
  } else {
    log.addEvent(step, "finished", "training finished at step " + std::to_string(step));
    events.run(step, "finished", "training finished at step " + std::to_string(step));
  }
  log.close();
  summary.finalStep = step;
  summary.lastEvalLoss = lastEvalLoss;
  return summary;
}

}  // namespace attnlab::core
