#include "core/train/trainer.h"

#include "core/train/data_on_ranks.h"

#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/pretrained_folder.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/data/data_files.h"
#include "core/data/mlm_data.h"
#include "core/distributed/distributed_context.h"
#include "core/errors/error.h"
#include "core/mechanisms/attention_mechanism.h"
#include "core/model/masked_lm.h"
#include "core/runlog/run_log_writer.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/device.h"
#include "core/runtime/engine_random.h"
#include "core/runtime/fault_injection.h"
#include "core/runtime/gpu_info.h"
#include "core/runtime/precision.h"
#include "core/train/adamw.h"
#include "core/train/attention_snapshots.h"
#include "core/train/evaluation.h"
#include "core/train/health_stream.h"
#include "core/train/interval_metrics.h"
#include "core/train/objective_composer.h"
#include "core/train/run_directory_lock.h"
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
  void run(std::int64_t step, RunEventKind kind, std::string message) const {
    send(MilestoneEvent{step, kind, std::move(message)});
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
  msg << "; tokenizer " << data.tokenizer.tokenizer->vocabSize() << " pieces ("
      << tokenizerOriginName(data.tokenizer.origin);
  if (data.tokenizer.trainingLines > 0 &&
      data.tokenizer.trainingLines < static_cast<std::int64_t>(data.corpus.stats.linesKept)) {
    msg << " on a sample of " << data.tokenizer.trainingLines << " lines";
  }
  msg << "); " << data.store.tokenCount() << " tokens in " << data.store.shardCount()
      << " shard(s)";
  if (data.store.wasBuilt() && data.store.shardsReused() > 0) {
    msg << " (" << data.store.shardsReused() << " kept from an interrupted build)";
  }
  msg << ", " << data.train.blocksPerEpoch() << " training and " << data.validation.blocksPerEpoch()
      << " validation blocks (" << std::fixed << std::setprecision(1) << seconds << " s)";
  return msg.str();
}

/// Everything the run log will ever hold, declared before SWMR writing starts: the default
/// scalars, the mechanisms' quantities, the snapshots.
RunLogSchema declareRunLog(const RunConfig& c, const std::string& configToml,
                           const Tokenizer& tokenizer,
                           const std::vector<LoggedQuantity>& quantities,
                           const AttentionSnapshots& snapshots, const HealthStream& health) {
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
  health.declare(schema);
  return schema;
}

/// FNV-1a of the resolved configuration, in hex: equal configurations on every rank (the
/// same on any machine and build, unlike std::hash).
std::string configFingerprint(const std::string& toml) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char ch : toml) h = (h ^ ch) * 0x100000001b3ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

/// One run of Trainer::run: the algorithm in execute(), each part in a method below.
class TrainingRun {
 public:
  TrainingRun(const RunConfig& config, fs::path runDir, TrainingObserver* observer,
              TrainingControl& control, DistributedContext* distributed,
              const PretrainedModel* pretrained)
      : m_config(config),
        m_pretrained(pretrained),
        m_runDir(std::move(runDir)),
        m_events{observer},
        m_control(control),
        m_checkpoints(m_runDir, config.train.keepLast, config.train.keepBest),
        m_distributed(distributed && distributed->worldSize() > 1 ? distributed : nullptr) {}

  TrainingSummary execute() {
    openRunDirectory();
    findCheckpointToResume();  // first, so a shape mismatch is reported before data work
    if (!prepareDataOnEveryRank()) return stoppedBeforeTraining();
    buildModel();  // model, objective, optimiser; the checkpoint restored into them
    if (isRoot()) openRunLog();
    TrainStep trainStep(*m_model, *m_objective, *m_optimizer, m_config, m_device, m_distributed);
    if (m_state) m_state->attachLossScaler(trainStep.lossScaler());  // the checkpoint's scale
    const MicroBatchSource batches = [this](std::int64_t i) { return m_data->train.batch(i); };
    m_trainStart = std::chrono::steady_clock::now();
    while (m_step < m_config.schedule.steps) {
      if (!holdWhilePaused()) break;  // false: stop requested
      const StepMeasurements measured = runStep(trainStep, batches);
      if (!measured.nonFinite.empty()) failNonFinite(measured);
      if (measured.skipped && isRoot())
        m_events.run(measured.step, RunEventKind::Note,
                     "float16 gradients overflowed at loss scale " +
                         std::to_string(static_cast<long long>(measured.lossScale)) +
                         ": step skipped (parameters unchanged), scale halved");
      if (isRoot())
        afterStep(measured);  // log rows, snapshots, evaluation, checkpoints
      else
        m_step = measured.step;
    }
    return finish();
  }

 private:
  void openRunDirectory() {
    validateRunConfig(m_config);
    ensureWritableDirectory(m_runDir);
    // Rank 0 holds the lock for the whole data-parallel run; the other ranks work under it.
    if (isRoot()) m_lock.emplace(m_runDir);  // refuses a directory another run is training
    if (m_distributed) {
      const std::string toml = toToml(m_config);
      m_distributed->requireSameAsRoot("the resolved configuration's hash",
                                       configFingerprint(toml));
    }
    m_threads = configureIntraOpThreads(m_config.train.threads);
    m_device = resolveDevice(m_config.train.device, m_distributed ? m_distributed->localRank() : 0,
                             m_distributed ? m_distributed->localWorldSize() : 1);
    // Before any data work: a precision the device cannot run is refused now.
    const std::string precision = applyPrecision(m_config.train.precision, m_device).note;
    if (m_distributed) {
      // "auto" may find a GPU on one machine and none on another; the ranks must agree.
      m_distributed->requireSameAsRoot("the device kind", m_device.is_cuda() ? "cuda" : "cpu");
      if (m_device.is_cuda()) m_cudaTransport = m_distributed->useCudaTensors();
    }
    m_events.run(0, RunEventKind::Setup,
                 "run " + m_config.run.name + " in " + m_runDir.string() + " on " + m_device.str() +
                     ", " + precision + ", " + std::to_string(m_threads) + " thread(s)");
  }

  void findCheckpointToResume() {
    const CheckpointScan scan = m_checkpoints.scan();
    for (const auto& leftover : scan.leftovers) {
      m_events.run(0, RunEventKind::Note,
                   "ignoring an interrupted checkpoint write: " + leftover.string());
    }
    // A damaged newer checkpoint (truncated, edited) is passed over, never silently.
    for (const auto& broken : scan.unreadable) {
      m_events.run(0, RunEventKind::Note, "ignoring a checkpoint that cannot be read: " + broken);
    }
    if (const auto latest = m_checkpoints.latest()) {
      m_resume = CheckpointStore::load(latest->path);
      m_events.run(m_resume->step, RunEventKind::Note,
                   "resuming from " + latest->path.string() + " (step " +
                       std::to_string(m_resume->step) + ")");
    }
  }

  /// The data on every rank: prepared here, or (multi-process) once per machine and opened
  /// by the other ranks (core/train/data_on_ranks.h). False when a stop came first.
  bool prepareDataOnEveryRank() {
    const auto start = std::chrono::steady_clock::now();
    const DataOnRanks::Report report = [this](const DataProgress& p) {
      m_events.send(PhaseEvent{"preparing data: " + p.phase,
                               static_cast<std::int64_t>(p.done),
                               static_cast<std::int64_t>(p.total),
                               {},
                               p.phaseSeconds,
                               p.total > 0 ? PhaseUnit::Bytes : PhaseUnit::None});
      return !m_control.stopRequested();
    };
    const DataOnRanks::Prepare prepare =
        [this](const DataProgressCallback& progress) -> std::optional<MlmData> {
      try {
        return prepareMlmData(m_config, m_runDir, m_threads, progress);
      } catch (const Cancelled&) {
        return std::nullopt;  // the files of finished phases and shards stay for a restart
      }
    };
    std::optional<MlmData> data =
        m_distributed ? DataOnRanks(*m_distributed, m_config, m_runDir).run(prepare, report)
                      : prepare(report);
    bool ready = data.has_value();
    if (ready) {
      m_data.emplace(std::move(*data));
      ready = dataPrepared(secondsSince(start));
    } else {
      m_events.run(0, RunEventKind::Stopped, "stopped during data preparation");
    }
    if (!m_distributed) return ready;
    // Stopped during preparation on any rank: every rank stops.
    return m_distributed->max(ready ? 0 : 1) == 0;
  }

  /// Reports the data and refuses a corpus without training blocks.
  bool dataPrepared(double seconds) {
    m_events.run(0, RunEventKind::Data, describeData(*m_data, seconds));
    if (m_resume && m_data->tokenizer.trained)
      m_events.run(0, RunEventKind::Note,
                   "note: the run's tokenizer did not match its record (replaced or damaged) "
                   "and was trained again");
    if (m_resume && m_data->store.wasBuilt())
      m_events.run(0, RunEventKind::Note,
                   "note: the token store was rebuilt: " + m_data->store.buildReason());
    if (m_data->train.blocksPerEpoch() == 0) {
      throw DataError("corpus", "the corpus yields no training blocks of data.sequence_length = " +
                                    std::to_string(m_config.data.sequenceLength) + " tokens");
    }
    return true;
  }

  TrainingSummary stoppedBeforeTraining() {
    m_summary.stopped = true;
    m_summary.startStep = m_summary.finalStep = m_resume ? m_resume->step : 0;
    return m_summary;
  }

  void buildModel() {
    const RunConfig& c = m_config;
    const auto& tokenizer = *m_data->tokenizer.tokenizer;
    // The seed fixes initialisation and dropout. Construction draws from LibTorch's global
    // generator (seeded under its lock); training draws from the run's own generator, which
    // continues where construction left off, so nothing else in the process can shift the
    // run's random numbers (core/runtime/engine_random.h).
    at::Generator runGenerator = seededConstruction(static_cast<std::uint64_t>(c.run.seed), [&] {
      m_model = MaskedLanguageModel(c.model, c.attention, c.data.sequenceLength,
                                    tokenizer.vocabSize(), tokenizer.specialIds().pad);
      m_objective = std::make_unique<ObjectiveComposer>(c, guidanceTokensFor(tokenizer));
      m_snapshots = std::make_unique<AttentionSnapshots>(
          c, m_data->validation.blocksPerEpoch() > 0 ? &m_data->validation.blocks() : nullptr,
          tokenizer, c.attention.asa.enabled);
      m_health = std::make_unique<HealthStream>(c, *m_snapshots);
    });
    m_generator.emplace(std::move(runGenerator));
    if (m_pretrained != nullptr && !m_resume) startFromPretrained();
    if (m_device.is_cuda()) torch::cuda::manual_seed_all(static_cast<std::uint64_t>(c.run.seed));
    m_model->to(m_device);
    m_model->train();
    std::vector<std::pair<std::string, at::Tensor>> named;
    for (const auto& p : m_model->named_parameters()) named.emplace_back(p.key(), p.value());
    m_optimizer =
        std::make_unique<AdamW>(named, AdamWOptions{c.optimizer.beta1, c.optimizer.beta2,
                                                    c.optimizer.eps, c.optimizer.weightDecay});
    m_state = std::make_unique<TrainingState>(named, *m_optimizer, c);
    if (m_resume) {
      requireCheckpointTokenizer(*m_resume, m_data->tokenizer.fingerprint);
      std::string note;
      m_step = m_state->restore(*m_resume, note);
      if (!note.empty()) m_events.run(m_step, RunEventKind::Note, "note: " + note);
    }
    m_startStep = m_step;
    m_summary.startStep = m_step;
    m_checkpointed = m_resume.has_value();
    // Every rank starts from rank 0's parameters (equal already when they come from the same
    // seed or checkpoint; this makes it so whatever the ranks' libraries did).
    if (m_distributed) {
      std::vector<at::Tensor> parameters;
      for (const auto& p : m_model->parameters()) parameters.push_back(p);
      m_distributed->broadcast(parameters);
    }
  }

  /// model.init_from: the encoder and MLM head from the pretrained model; the mechanisms'
  /// own parameters keep the initialisation their papers give (made above).
  /// Its weights are read here, not at the start: a resumed run reads its checkpoint instead.
  void startFromPretrained() {
    initialiseFromPretrained(m_model, loadHuggingFaceBert(m_config.model.initFrom));
    m_events.run(0, RunEventKind::Note,
                 "note: weights and tokenizer from " + m_config.model.initFrom + " (" +
                     m_pretrained->modelType + ", " + std::to_string(m_config.model.layers) +
                     " layers x " + std::to_string(m_config.model.heads) + " heads, hidden " +
                     std::to_string(m_config.model.hiddenSize) + ")");
  }

  /// The rows an existing log keeps: up to the checkpoint resumed from, or none when there
  /// is no checkpoint and the run starts over (its step-0 rows would be logged twice).
  std::optional<std::int64_t> resumeAfterStep(bool logExists) const {
    if (!logExists) return std::nullopt;
    return m_resume ? m_startStep : std::int64_t{-1};
  }

  void openRunLog() {
    const RunConfig& c = m_config;
    std::vector<LoggedQuantity> quantities = loggedQuantities(c);
    if (m_objective->addsTerms()) {
      quantities.push_back({kTotalLossScalar, LoggedShape::Scalar, LoggedReduction::IntervalMean,
                            "loss", "the whole objective: MLM plus the mechanisms' terms"});
    }
    const std::string configToml = toToml(c);
    writeFileAtomically(m_runDir / "config.toml", configToml);
    const fs::path path = runLogPath(m_runDir);
    const bool exists = fs::exists(path);
    m_log = std::make_unique<RunLogWriter>(
        path.string(),
        declareRunLog(c, configToml, *m_data->tokenizer.tokenizer, quantities, *m_snapshots,
                      *m_health),
        c.log.flushSeconds, /*resume=*/exists, resumeAfterStep(exists));
    m_summary.runLog = path;
    m_interval = std::make_unique<IntervalMetrics>(c, quantities);
    const int world = m_distributed ? m_distributed->worldSize() : 1;
    milestone(m_resume ? RunEventKind::Resume : RunEventKind::Start,
              m_resume ? "resumed from " + m_resume->path.string() : "training started", world);
    if (exists && !m_resume)
      milestone(RunEventKind::Note,
                "starting over: an earlier attempt left a run log but no checkpoint; its rows "
                "are dropped");
    milestone(RunEventKind::Variants, describeMechanisms(c));
    if (m_distributed)
      milestone(RunEventKind::Distributed,
                "data-parallel over " + std::to_string(m_distributed->worldSize()) +
                    " processes (c10d Gloo, rank 0 on " + m_distributed->transport() +
                    (m_cudaTransport.empty() ? "" : "; CUDA tensors: " + m_cudaTransport) +
                    "); each optimiser step takes " +
                    std::to_string(c.train.gradientAccumulation * m_distributed->worldSize()) +
                    " micro-batches of " + std::to_string(c.train.batchSize) + " sequences",
                m_distributed->worldSize());
    if (m_startStep == 0) {
      m_snapshots->write(*m_model, m_device, 0, *m_log);
      m_health->write(*m_model, m_device, 0, *m_log);
    }
  }

  /// Holds while a pause is asked for; false when a stop is (the loop ends).
  bool holdWhilePaused() {
    if (m_control.pauseRequested() && !m_control.stopRequested()) {
      milestone(RunEventKind::Paused, "paused after step " + std::to_string(m_step));
      m_control.waitWhilePaused();
      if (!m_control.stopRequested()) milestone(RunEventKind::Unpaused, "training goes on");
    }
    bool stop = m_control.stopDue(m_step);
    // Any rank's stop (a Ctrl-C reaches every worker, but not at the same step) stops all
    // of them after the same step.
    if (m_distributed) stop = m_distributed->max(stop ? 1 : 0) != 0;
    if (stop) {
      m_summary.stopped = true;
      return false;
    }
    return true;
  }

  /// One step; out of device memory ends the run with what a person needs to size it down
  /// (the batch, the memory held) and the last checkpoint kept.
  StepMeasurements runStep(TrainStep& trainStep, const MicroBatchSource& batches) {
    try {
      return trainStep.run(m_step, batches);
    } catch (const c10::OutOfMemoryError& e) {
      const std::string what = e.what();
      std::ostringstream message;
      message << "out of memory on " << m_device.str() << " at step " << (m_step + 1)
              << " with batch " << m_config.train.batchSize << " x " << m_config.data.sequenceLength
              << " tokens (accumulation " << m_config.train.gradientAccumulation << ")";
      if (m_device.is_cuda())
        message << ", " << std::fixed << std::setprecision(2)
                << static_cast<double>(gpuMemoryUse(m_device.index()).reservedBytes) / (1 << 30)
                << " GiB held by LibTorch";
      message << ": " << what.substr(0, what.find('\n'))
              << "; lower train.batch_size and raise train.gradient_accumulation for the same "
                 "global batch"
              << (m_summary.lastCheckpoint.empty() && !m_resume
                      ? ""
                      : "; the last good checkpoint is kept");
      if (m_log) {
        m_log->addEvent(m_step, RunEventKind::OutOfMemory, message.str());
        m_log->close();
      }
      throw TrainingError("step " + std::to_string(m_step + 1), message.str());
    }
  }

  [[noreturn]] void failNonFinite(const StepMeasurements& measured) {
    const std::string message =
        measured.nonFinite + "; the run stopped without applying this update" +
        (m_summary.lastCheckpoint.empty() && !m_resume ? "" : "; the last good checkpoint is kept");
    if (m_log) {
      m_log->addEvent(measured.step, RunEventKind::NonFinite, message);
      m_log->close();
    }
    throw TrainingError("step " + std::to_string(measured.step), message);
  }

  /// The bookkeeping that reads what the step produced.
  void afterStep(const StepMeasurements& measured) {
    const RunConfig& c = m_config;
    m_step = measured.step;
    m_checkpointed = false;
    m_interval->add(measured);
    const bool last = m_step == c.schedule.steps;
    if (due(c.train.logEvery) || last) {
      m_events.send(m_interval->flush(m_step, *m_model, *m_log, secondsSince(m_trainStart)));
    }
    if (m_snapshots->due(m_step)) m_snapshots->write(*m_model, m_device, m_step, *m_log);
    if (m_health->due(m_step)) m_health->write(*m_model, m_device, m_step, *m_log);
    if (due(c.train.evalEvery) || (c.train.evalEvery > 0 && last)) evaluate();
    const bool asked = m_control.takeCheckpointRequest();
    if ((due(c.train.checkpointEvery) || asked) && !last) saveCheckpoint();
  }

  bool due(std::int64_t every) const { return every > 0 && m_step % every == 0; }

  void evaluate() {
    const auto result =
        evaluateMlm(*m_model, m_data->validation, m_config.train.evalBatches, m_device, &m_control);
    if (!result) return;  // no validation data, or a stop came between batches
    m_lastEvalLoss = result->loss;
    m_lastEvalStep = m_step;
    m_log->appendScalar("eval/loss", m_step, result->loss);
    m_log->appendScalar("eval/accuracy", m_step, result->accuracy);
    m_events.send(EvaluationEvent{m_step, m_config.schedule.steps, result->loss, result->accuracy});
  }

  void saveCheckpoint() {
    const std::optional<double> valLoss =
        m_lastEvalStep == m_step ? m_lastEvalLoss : std::optional<double>();
    // The log first: everything up to this step, and the checkpoint's own row, is written
    // and flushed before the checkpoint appears under its name. A kill before the rename
    // resumes from the previous checkpoint, and the resume drops the rows logged after it;
    // a kill after it finds a log that already holds all a resume from here relies on.
    m_summary.lastCheckpoint =
        m_state->save(m_checkpoints, m_step, valLoss, m_data->tokenizer.modelPath,
                      m_data->tokenizer.fingerprint, [&](const fs::path& finalPath) {
                        m_log->addCheckpoint(m_step, finalPath.string(), valLoss);
                        m_log->sync();
                        faultPoint(fault_point::kBeforeCheckpointPublish, m_step);
                      });
    faultPoint(fault_point::kCheckpointPublished, m_step);
    m_events.send(CheckpointEvent{m_step, m_summary.lastCheckpoint, valLoss});
    m_checkpointed = true;
  }

  TrainingSummary finish() {
    if (!isRoot()) {
      m_summary.finalStep = m_step;
      return m_summary;
    }
    if (!m_checkpointed && m_step > m_startStep) saveCheckpoint();
    if (m_summary.stopped) {
      m_log->addEvent(m_step, RunEventKind::Stopped,
                      "stopped on request after step " + std::to_string(m_step));
      m_events.run(m_step, RunEventKind::Stopped,
                   "stopped after step " + std::to_string(m_step) + ", checkpoint saved");
    } else {
      milestone(RunEventKind::Finished, "training finished at step " + std::to_string(m_step));
    }
    m_log->close();
    m_summary.finalStep = m_step;
    m_summary.lastEvalLoss = m_lastEvalLoss;
    return m_summary;
  }

  /// A milestone for both the run log and the observer.
  void milestone(RunEventKind kind, const std::string& message, int worldSize = 0) {
    m_log->addEvent(m_step, kind, message, worldSize);
    m_events.send(MilestoneEvent{m_step, kind, message, worldSize});
  }

  bool isRoot() const { return !m_distributed || m_distributed->isRoot(); }

  const RunConfig& m_config;
  const PretrainedModel* m_pretrained;  ///< model.init_from's config.json (no weights), or null
  const fs::path m_runDir;
  const Events m_events;
  TrainingControl& m_control;
  TrainingSummary m_summary;
  int m_threads = 0;
  std::optional<RunDirectoryLock> m_lock;            // held from opening the directory to the end
  std::optional<ScopedThreadGenerator> m_generator;  // the run's random numbers
  c10::Device m_device{c10::kCPU};
  std::string m_cudaTransport;  // how a data-parallel run on GPUs reduces: "NCCL", ...
  CheckpointStore m_checkpoints;
  std::optional<CheckpointData> m_resume;
  std::optional<MlmData> m_data;
  MaskedLanguageModel m_model{nullptr};
  std::unique_ptr<ObjectiveComposer> m_objective;
  std::unique_ptr<AttentionSnapshots> m_snapshots;
  std::unique_ptr<HealthStream> m_health;
  std::unique_ptr<AdamW> m_optimizer;
  std::unique_ptr<TrainingState> m_state;
  std::unique_ptr<RunLogWriter> m_log;
  std::unique_ptr<IntervalMetrics> m_interval;
  std::int64_t m_step = 0;
  std::int64_t m_startStep = 0;
  bool m_checkpointed = false;
  std::optional<double> m_lastEvalLoss;
  std::int64_t m_lastEvalStep = -1;
  std::chrono::steady_clock::time_point m_trainStart;
  DistributedContext* m_distributed = nullptr;  // null: one process
};

}  // namespace

fs::path runLogPath(const fs::path& runDir) {
  return runDir / "run.h5";
}

Trainer::Trainer(RunConfig config, fs::path runDir, TrainingObserver* observer,
                 DistributedContext* distributed)
    : m_config(std::move(config)),
      m_runDir(std::move(runDir)),
      m_observer(observer),
      m_distributed(distributed) {}

Trainer::~Trainer() = default;

TrainingSummary Trainer::run(const std::atomic<bool>& stop) {
  TrainingControl control;
  control.linkStopFlag(&stop);
  return run(control);
}

TrainingSummary Trainer::run(TrainingControl& control) {
  if (m_config.model.initFrom.empty())
    return TrainingRun(m_config, m_runDir, m_observer, control, m_distributed, nullptr).execute();
  // model.init_from: the pretrained model's shapes replace the configured ones before
  // anything reads them (the data's sequence length check, config.toml, the checkpoints).
  const PretrainedModel pretrained = describeHuggingFaceBert(m_config.model.initFrom);
  RunConfig effective = m_config;
  adoptPretrainedShapes(effective, pretrained);
  // Recorded absolute, so the run's config.toml means the same folder from anywhere.
  effective.model.initFrom = canonicalModelFolder(m_config.model.initFrom).string();
  return TrainingRun(effective, m_runDir, m_observer, control, m_distributed, &pretrained)
      .execute();
}

}  // namespace attnlab::core
