#include "core/train/trainer.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/config/config_schema.h"
#include "core/data/data_files.h"
#include "core/data/mlm_data.h"
#include "core/errors/error.h"
#include "core/model/masked_lm.h"
#include "core/runlog/run_log_writer.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/device.h"
#include "core/train/adamw.h"
#include "core/train/attention_snapshots.h"
#include "core/train/grad_clip.h"
#include "core/train/objective_composer.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

constexpr const char* kModelPrefix = "model/";
constexpr const char* kCpuRngBlob = "rng/torch_cpu";

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

std::vector<std::uint8_t> cpuRngState() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  const auto state = gen.get_state();
  const auto* bytes = state.data_ptr<std::uint8_t>();
  return std::vector<std::uint8_t>(bytes, bytes + state.numel());
}

void restoreCpuRngState(const std::vector<std::uint8_t>& bytes) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  auto state = torch::empty({static_cast<int64_t>(bytes.size())}, torch::kUInt8);
  std::memcpy(state.data_ptr<std::uint8_t>(), bytes.data(), bytes.size());
  gen.set_state(state);
}

/// sum += value on the device; an undefined sum starts at value, an undefined value is
/// skipped (the mechanism is off).
void accumulate(at::Tensor& sum, const at::Tensor& value) {
  if (!value.defined()) return;
  sum = sum.defined() ? sum + value : value;
}

std::string shapeText(const at::Tensor& t) {
  return c10::str(t.sizes());
}

/// Which attention variants a run uses and, where paper and official code differ, which
/// choice it made; written to the run log's events at start.
std::string describeVariants(const RunConfig& c) {
  const auto& a = c.attention;
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (a.guidance.enabled) {
    add("guidance (loss " + a.guidance.loss + ", schedule " + a.guidance.schedule + ", edge rows " +
        a.guidance.edgeRows + ", layers " + a.guidance.layers + ")");
  }
  if (a.position.mode != "none") {
    add("position interactions " + a.position.mode + " (relative " + a.position.relative +
        ", layers " + a.position.layers + ")");
  }
  if (a.temperature) add("learnable temperature");
  if (a.conv != "none") add("convolved attention " + a.conv);
  if (a.residual != "none") add("residual attention (running " + a.residual + ")");
  if (a.asa.enabled) {
    add("adversarial self-attention (binarize " + a.asa.binarize + ", kl " + a.asa.kl +
        ", penalty " + a.asa.penalty + ")");
  }
  if (a.blur.target != "none") add("Gaussian blur on " + a.blur.target);
  if (a.squeeze.enabled) add("squeeze-excitation (" + a.squeeze.combine + ")");
  return out.empty() ? "baseline attention (no variants)" : "variants: " + out;
}

}  // namespace

fs::path runLogPath(const fs::path& runDir) {
  return runDir / "run.h5";
}

Trainer::Trainer(RunConfig config, fs::path runDir, TrainingObserver* observer)
    : m_config(std::move(config)), m_runDir(std::move(runDir)), m_observer(observer) {}

Trainer::~Trainer() = default;

TrainingSummary Trainer::run(const std::atomic<bool>& stop) {
  const RunConfig& c = m_config;
  validateRunConfig(c);
  auto say = [this](const std::string& message) {
    if (m_observer != nullptr) m_observer->onMessage(message);
  };

  ensureWritableDirectory(m_runDir);
  const int threads = configureIntraOpThreads(c.train.threads);
  const c10::Device device = resolveDevice(parseDeviceChoice(c.train.device, "train.device"));
  say("run " + c.run.name + " in " + m_runDir.string() + " on " + device.str() + ", " +
      std::to_string(threads) + " thread(s)");

  // Resume decision first, so a shape mismatch is reported before minutes of data work.
  CheckpointStore checkpoints(m_runDir, c.train.keepLast, c.train.keepBest);
  const auto scan = checkpoints.scan();
  for (const auto& leftover : scan.leftovers) {
    say("ignoring an interrupted checkpoint write: " + leftover.string());
  }
  std::optional<CheckpointData> resume;
  if (const auto latest = checkpoints.latest()) {
    resume = CheckpointStore::load(latest->path);
    say("resuming from " + latest->path.string() + " (step " + std::to_string(resume->step) + ")");
  }

  // Data: corpus, tokenizer, token store, batchers.
  const auto dataStart = std::chrono::steady_clock::now();
  MlmData data = prepareMlmData(c, m_runDir, threads);
  {
    std::ostringstream msg;
    msg << "corpus: " << data.corpus.stats.linesKept << " lines, " << data.corpus.stats.words
        << " words";
    if (data.corpus.stats.linesSkipped > 0) {
      msg << ", " << data.corpus.stats.linesSkipped << " lines skipped";
      for (const auto& issue : data.corpus.issues)
        msg << "\n  skipped " << issue.where() << ": " << issue.reason;
    }
    msg << "; tokenizer " << data.tokenizer.tokenizer.vocabSize() << " pieces ("
        << (data.tokenizer.trained ? "trained" : "reused") << "); " << data.store.tokenCount()
        << " tokens, " << data.train.blocksPerEpoch() << " training and "
        << data.validation.blocksPerEpoch() << " validation blocks (" << std::fixed
        << std::setprecision(1) << secondsSince(dataStart) << " s)";
    say(msg.str());
  }
  if (data.train.blocksPerEpoch() == 0) {
    throw DataError("corpus", "the corpus yields no training blocks of data.sequence_length = " +
                                  std::to_string(c.data.sequenceLength) + " tokens");
  }
  const auto& tokenizer = data.tokenizer.tokenizer;

  // Model and optimiser. The seed fixes initialisation and dropout.
  torch::manual_seed(c.run.seed);
  MaskedLanguageModel model(c.model, c.attention, c.data.sequenceLength, tokenizer.vocabSize(),
                            tokenizer.specialIds().pad);
  const ObjectiveComposer composer(c, c.model.layers, c.model.heads, guidanceTokensFor(tokenizer));
  const AttentionSnapshots snapshots(
      c, data.validation.blocksPerEpoch() > 0 ? &data.validation.blocks() : nullptr, tokenizer,
      c.attention.asa.enabled);
  model->to(device);
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::vector<at::Tensor> params;
  for (const auto& p : model->named_parameters()) {
    named.emplace_back(p.key(), p.value());
    params.push_back(p.value());
  }
  AdamW optimizer(named,
                  {c.optimizer.beta1, c.optimizer.beta2, c.optimizer.eps, c.optimizer.weightDecay});

  std::int64_t startStep = 0;
  if (resume) {
    // Shape check with a message that says which settings differ.
    std::string differing;
    try {
      const RunConfig saved = parseRunConfig(resume->metadata.configToml, resume->path.string());
      for (const auto& key : differingKeys(saved, c))
        differing += (differing.empty() ? "" : ", ") + key;
    } catch (const ConfigError&) {
    }
    torch::NoGradGuard noGrad;
    for (auto& [name, p] : named) {
      const auto it = resume->tensors.find(kModelPrefix + name);
      if (it == resume->tensors.end()) {
        throw CheckpointError(
            resume->path.string(),
            "was written by a different model: it has no parameter '" + name + "'" +
                (differing.empty() ? "" : " (settings that differ: " + differing + ")"));
      }
      if (it->second.sizes() != p.sizes()) {
        throw CheckpointError(
            resume->path.string(),
            "was written by a model of a different shape: " + name + " is " +
                shapeText(it->second) + " in the checkpoint but " + shapeText(p) +
                " in this configuration" +
                (differing.empty() ? "" : " (settings that differ: " + differing + ")") +
                "; use a new run directory or the original configuration");
      }
      p.copy_(it->second.to(p.device(), p.scalar_type()));
    }
    std::map<std::string, at::Tensor> optimizerState;
    for (const auto& [key, t] : resume->tensors) {
      if (key.rfind("optimizer/", 0) == 0) optimizerState[key] = t.to(device);
    }
    optimizer.loadState(optimizerState);
    const auto rng = resume->metadata.blobs.find(kCpuRngBlob);
    if (rng == resume->metadata.blobs.end()) {
      throw CheckpointError(resume->path.string(), "has no CPU random-number state");
    }
    restoreCpuRngState(rng->second);
    startStep = resume->step;
    if (!differing.empty()) say("note: settings changed since the checkpoint: " + differing);
  }

  // Run log: everything it will ever hold is declared before SWMR writing starts.
  const std::string configToml = toToml(c);
  writeFileAtomically(m_runDir / "config.toml", configToml);
  RunLogSchema schema;
  schema.runName = c.run.name;
  schema.configToml = configToml;
  schema.configJson = toJson(c);
  for (int id = 0; id < tokenizer.vocabSize(); ++id)
    schema.tokenizerPieces.push_back(tokenizer.idToPiece(id));
  schema.scalarNames = RunLogSchema::defaultScalarNames();
  schema.scalarNames.push_back("train/accuracy");
  for (const auto& name : composer.scalarNames()) schema.scalarNames.push_back(name);
  auto perLayerSeries = [&](const std::string& name, std::vector<std::int64_t> shape) {
    TensorSeriesSpec spec;
    spec.name = name;
    spec.innerShape = std::move(shape);
    schema.series.push_back(spec);
  };
  const std::int64_t layers = c.model.layers;
  if (c.attention.asa.enabled) perLayerSeries("asa/mask_proportion", {layers});
  if (c.attention.squeeze.enabled) perLayerSeries("squeeze/weights", {layers});
  if (c.attention.temperature) {
    for (const char* which : {"temperature/q", "temperature/k", "temperature/v"}) {
      perLayerSeries(which, {layers, c.model.heads});
    }
  }
  snapshots.declare(schema);
  const fs::path logPath = runLogPath(m_runDir);
  const bool logExists = fs::exists(logPath);
  RunLogWriter log(logPath.string(), schema, c.log.flushSeconds, /*resume=*/logExists,
                   logExists ? std::optional<std::int64_t>(startStep) : std::nullopt);
  log.addEvent(startStep, resume ? "resume" : "start",
               resume ? "resumed from " + resume->path.string() : "training started");
  log.addEvent(startStep, "variants", describeVariants(c));
  say(describeVariants(c));
  if (startStep == 0) snapshots.write(*model, device, 0, log);

  TrainingSummary summary;
  summary.startStep = startStep;
  summary.runLog = logPath;

  std::optional<double> lastEvalLoss;
  std::int64_t lastEvalStep = -1;
  auto evaluate = [&](std::int64_t step) {
    const std::int64_t batches =
        std::min<std::int64_t>(c.train.evalBatches, data.validation.batchesPerEpoch());
    if (batches <= 0) return;
    torch::NoGradGuard noGrad;
    model->eval();
    auto lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
    auto predicted = torch::zeros_like(correct);
    for (std::int64_t k = 0; k < batches; ++k) {
      const auto batch = data.validation.batch(k);
      const auto out = model->forward(batch.inputIds.to(device), batch.attentionMask.to(device),
                                      batch.labels.to(device));
      lossSum += out.loss.to(torch::kDouble) * out.predicted;
      correct += out.correct;
      predicted += out.predicted;
    }
    model->train();
    const double n = static_cast<double>(predicted.item<std::int64_t>());
    lastEvalLoss = lossSum.item<double>() / n;
    lastEvalStep = step;
    const double accuracy = static_cast<double>(correct.item<std::int64_t>()) / n;
    log.appendScalar("eval/loss", step, *lastEvalLoss);
    log.appendScalar("eval/accuracy", step, accuracy);
    if (m_observer != nullptr) {
      TrainingProgress p;
      p.step = step;
      p.totalSteps = c.schedule.steps;
      p.evalLoss = lastEvalLoss;
      p.evalAccuracy = accuracy;
      m_observer->onProgress(p);
    }
  };

  auto saveCheckpoint = [&](std::int64_t step) {
    std::map<std::string, at::Tensor> tensors;
    for (const auto& [name, p] : named) tensors[kModelPrefix + name] = p.detach();
    for (const auto& [key, t] : optimizer.state()) tensors[key] = t;
    CheckpointMetadata meta;
    meta.configToml = configToml;
    meta.attributes["run_name"] = c.run.name;
    meta.attributes["tokenizer_model"] = data.tokenizer.modelPath.string();
    meta.blobs[kCpuRngBlob] = cpuRngState();
    const std::optional<double> valLoss =
        lastEvalStep == step ? lastEvalLoss : std::optional<double>();
    summary.lastCheckpoint = checkpoints.save(step, valLoss, tensors, meta);
    log.addCheckpoint(step, summary.lastCheckpoint.string(), valLoss);
    say("checkpoint " + summary.lastCheckpoint.string());
  };

  // Metrics accumulate on the device and reach the host once per logging interval.
  const auto trainStart = std::chrono::steady_clock::now();
  auto intervalStart = trainStart;
  auto lossSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
  auto correctSum = torch::zeros({}, torch::TensorOptions().dtype(torch::kLong).device(device));
  auto predictedSum = torch::zeros_like(correctSum);
  std::int64_t intervalTokens = 0;
  std::int64_t intervalMicroBatches = 0;
  std::map<std::string, at::Tensor> variantSums;
  at::Tensor maskProportionSum;
  at::Tensor squeezeSum;
  double lastGuidanceWeight = 0.0;
  const int accumulation = c.train.gradientAccumulation;

  std::int64_t step = startStep;
  bool checkpointedAtStep = resume.has_value();
  while (step < c.schedule.steps) {
    if (stop.load()) {
      summary.stopped = true;
      break;
    }
    const double lr = learningRateAt(step, c.optimizer.learningRate, c.schedule.warmupSteps,
                                     c.schedule.steps, c.schedule.decay == "linear");
    optimizer.zeroGrad();
    auto stepLoss = torch::zeros({}, torch::TensorOptions().dtype(torch::kDouble).device(device));
    for (int micro = 0; micro < accumulation; ++micro) {
      const auto batch = data.train.batch(step * accumulation + micro);
      const StepOutcome out =
          composer.compute(*model, batch.inputIds.to(device), batch.attentionMask.to(device),
                           batch.labels.to(device), step);
      (out.total / accumulation).backward();
      stepLoss += out.total.detach().to(torch::kDouble) / accumulation;
      lossSum += out.mlm.to(torch::kDouble) * out.predicted;
      correctSum += out.correct;
      predictedSum += out.predicted;
      intervalTokens += batch.realTokens;
      ++intervalMicroBatches;
      lastGuidanceWeight = out.guidanceWeight;
      for (const auto& [name, value] : out.scalars)
        accumulate(variantSums[name], value.to(torch::kDouble));
      accumulate(maskProportionSum, out.maskProportion);
      accumulate(squeezeSum, out.squeezeWeights);
    }
    const auto gradNorm = clipGradNorm(params, c.optimizer.clipNorm);
    // One host read per step: a non-finite value must stop the run before the update
    // reaches the parameters, so the last good state is what remains.
    const auto finite = torch::stack({torch::isfinite(stepLoss), torch::isfinite(gradNorm)});
    const auto finiteHost = finite.to(torch::kCPU);
    if (!finiteHost[0].item<bool>() || !finiteHost[1].item<bool>()) {
      const bool lossBad = !finiteHost[0].item<bool>();
      const std::string quantity = lossBad ? "training loss" : "gradient norm";
      const double value = lossBad ? stepLoss.item<double>() : gradNorm.item<double>();
      std::ostringstream msg;
      msg << quantity << " is " << value << " at step " << step + 1
          << "; the run stopped without applying this update"
          << (summary.lastCheckpoint.empty() && !resume ? std::string("")
                                                        : "; the last good checkpoint is kept");
      log.addEvent(step + 1, "non_finite", msg.str());
      log.close();
      throw TrainingError("step " + std::to_string(step + 1), msg.str());
    }
    optimizer.step(lr);
    ++step;
    checkpointedAtStep = false;

    const bool logNow =
        (c.train.logEvery > 0 && step % c.train.logEvery == 0) || step == c.schedule.steps;
    if (logNow) {
      const double seconds = secondsSince(intervalStart);
      const double predicted = static_cast<double>(predictedSum.item<std::int64_t>());
      TrainingProgress p;
      p.step = step;
      p.totalSteps = c.schedule.steps;
      p.loss = lossSum.item<double>() / std::max(1.0, predicted);
      p.accuracy = static_cast<double>(correctSum.item<std::int64_t>()) / std::max(1.0, predicted);
      p.learningRate = lr;
      p.gradNorm = gradNorm.item<double>();
      p.tokensPerSecond = seconds > 0 ? double(intervalTokens) / seconds : 0.0;
      p.elapsedSeconds = secondsSince(trainStart);
      log.appendScalar("train/loss", step, p.loss);
      log.appendScalar("train/accuracy", step, p.accuracy);
      log.appendScalar("train/learning_rate", step, lr);
      log.appendScalar("train/grad_norm", step, p.gradNorm);
      log.appendScalar("train/tokens_per_second", step, p.tokensPerSecond);
      const double micro = static_cast<double>(std::max<std::int64_t>(1, intervalMicroBatches));
      for (auto& [name, sum] : variantSums) {
        log.appendScalar(name, step, sum.item<double>() / micro);
      }
      if (composer.guidance()) log.appendScalar("guidance/weight", step, lastGuidanceWeight);
      auto perLayer = [&](const std::string& name, const at::Tensor& sum) {
        if (!sum.defined()) return;
        auto mean = (sum / micro).to(torch::kCPU, torch::kFloat).contiguous();
        log.appendSeries(
            name, step,
            std::vector<float>(mean.data_ptr<float>(), mean.data_ptr<float>() + mean.numel()));
      };
      perLayer("asa/mask_proportion", maskProportionSum);
      perLayer("squeeze/weights", squeezeSum);
      if (c.attention.temperature) {
        std::vector<at::Tensor> perLayerTau;
        for (int l = 0; l < model->layerCount(); ++l) {
          perLayerTau.push_back(model->layer(l)->attention()->temperatures());
        }
        const auto tau = torch::stack(perLayerTau).to(torch::kCPU, torch::kFloat);  // [L, 3, H]
        const char* names[] = {"temperature/q", "temperature/k", "temperature/v"};
        for (int which = 0; which < 3; ++which) {
          auto rows = tau.select(1, which).contiguous();
          log.appendSeries(
              names[which], step,
              std::vector<float>(rows.data_ptr<float>(), rows.data_ptr<float>() + rows.numel()));
        }
      }
      variantSums.clear();
      maskProportionSum = at::Tensor();
      squeezeSum = at::Tensor();
      intervalMicroBatches = 0;
      if (m_observer != nullptr) m_observer->onProgress(p);
      lossSum.zero_();
      correctSum.zero_();
      predictedSum.zero_();
      intervalTokens = 0;
      intervalStart = std::chrono::steady_clock::now();
    }
    if (snapshots.due(step)) snapshots.write(*model, device, step, log);
    if (c.train.evalEvery > 0 && (step % c.train.evalEvery == 0 || step == c.schedule.steps)) {
      evaluate(step);
    }
    if (c.train.checkpointEvery > 0 && step % c.train.checkpointEvery == 0 &&
        step != c.schedule.steps) {
      saveCheckpoint(step);
      checkpointedAtStep = true;
    }
  }

  if (!checkpointedAtStep && step > startStep) saveCheckpoint(step);
  if (summary.stopped) {
    log.addEvent(step, "stopped", "stopped on request after step " + std::to_string(step));
    say("stopped after step " + std::to_string(step) + "; run the same command to resume");
  } else {
    log.addEvent(step, "finished", "training finished at step " + std::to_string(step));
  }
  log.close();
  summary.finalStep = step;
  summary.lastEvalLoss = lastEvalLoss;
  return summary;
}

}  // namespace attnlab::core
