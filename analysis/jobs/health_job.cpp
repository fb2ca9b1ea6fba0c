#include "analysis/jobs/health_job.h"

#include "analysis/report/report_files.h"
#include "analysis/report/report_layout.h"
#include "analysis/runs/evaluation_set.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/errors/error.h"
#include "core/health/attention_health.h"
#include "core/health/attention_spectral.h"
#include "core/health/rotary_spectral.h"
#include "core/inspect/attention_inspector.h"
#include "core/model/attention_maps.h"
#include "core/model/hook_points.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/pretrained_folder.h"
#include "core/runtime/engine_random.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {

/// A text file that is not there, is a folder or is empty is refused before the checkpoint
/// is loaded (which can take long), naming the file.
void checkTextFile(const fs::path& text) {
  if (text.empty()) return;
  std::error_code ec;
  if (!fs::exists(text, ec))
    throw DataError(text.string(), "no such text file (--text: one sequence a line)");
  if (!fs::is_regular_file(text, ec))
    throw DataError(text.string(), "is not a text file (--text: one sequence a line)");
  if (fs::file_size(text, ec) == 0 && !ec)
    throw DataError(text.string(), "is empty: the health report needs at least one line of text");
}

void checkSettings(const HealthJobOptions& o) {
  if (o.sinkEpsilon && !(*o.sinkEpsilon >= 0.0 && *o.sinkEpsilon <= 1.0))
    throw DataError("--sink-epsilon", "must be between 0 and 1 (a share of attention), not " +
                                          std::to_string(*o.sinkEpsilon));
  if (o.collapseNats && !(*o.collapseNats >= 0.0))
    throw DataError("--collapse-nats", "must be 0 or more (an entropy in nats), not " +
                                           std::to_string(*o.collapseNats));
}

/// What the batches need of the checkpoint once its inspector is gone.
struct ModelInputs {
  std::vector<std::string> pieces;  ///< piece by id
  std::int64_t pad = 0;
  std::int64_t fixedLength = 0;  ///< a 1-D convolved model runs at this length; else 0
};

/// The checkpoint's model, of its own (the inspector keeps its model private): a run's
/// checkpoint built from its stored configuration, or a Hugging Face folder imported.
core::MaskedLanguageModel loadModel(const fs::path& checkpoint, const core::RunConfig& config,
                                    int vocabSize, int pad) {
  if (core::isPretrainedModelFolder(checkpoint)) {
    std::optional<core::PretrainedModel> pretrained;
    (void)core::seededConstruction(
        0, [&] { pretrained.emplace(core::loadHuggingFaceBert(checkpoint)); });
    pretrained->network->eval();
    return pretrained->network;
  }
  const core::CheckpointData data = core::CheckpointStore::load(checkpoint);
  core::MaskedLanguageModel model{nullptr};
  (void)core::seededConstruction(config.run.seed, [&] {
    model = core::MaskedLanguageModel(config.model, config.attention, config.data.sequenceLength,
                                      vocabSize, pad, core::ParameterInit::Replaced);
  });
  torch::NoGradGuard noGrad;
  for (auto& p : model->named_parameters()) {
    const auto it = data.tensors.find("model/" + p.key());
    if (it == data.tensors.end() || it->second.sizes() != p.value().sizes())
      throw CheckpointError(checkpoint.string(), "has no parameter '" + p.key() +
                                                     "' of the shape its configuration builds");
    p.value().copy_(it->second);
  }
  model->eval();
  return model;
}

/// One batch's hook points (pattern, scores, resid_post) and token classes.
core::HealthBatch healthBatchOf(core::MaskedLanguageModelImpl& model, const at::Tensor& ids,
                                const ModelInputs& in) {
  torch::NoGradGuard noGrad;
  auto input = ids.contiguous();
  if (in.fixedLength > input.size(1))
    input = torch::constant_pad_nd(input, {0, in.fixedLength - input.size(1)}, in.pad);
  const auto mask = input.ne(in.pad);
  std::vector<std::string> pieces;
  pieces.reserve(static_cast<size_t>(input.numel()));
  const auto* id = input.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < input.numel(); ++i)
    pieces.push_back(id[i] >= 0 && id[i] < static_cast<std::int64_t>(in.pieces.size())
                         ? in.pieces[static_cast<size_t>(id[i])]
                         : std::string());
  core::HookRequest request;
  core::requestHealthHooks(request);
  core::HookSession hooks(request);
  core::ForwardOptions options;
  options.hooks = &hooks;
  core::MlmOutput unused;
  model.encodeWith(input, mask, options, unused);
  auto& cache = hooks.cache();
  const int L = model.layerCount();
  core::HealthBatch batch;
  core::takeHealthHooks(cache, L, batch);
  batch.realTokens = mask;
  batch.classes = core::sinkClassesOf(pieces, input.size(0), input.size(1));
  return batch;
}

/// Streams the evaluation set through the model into `accumulator`; cancel is checked before
/// every batch. Returns the longest sequence's real tokens.
std::int64_t accumulate(core::MaskedLanguageModelImpl& model, EvaluationSet& set,
                        const ModelInputs& in, core::HealthAccumulator& accumulator,
                        const AnalysisProgress& progress, const std::atomic<bool>* cancel) {
  set.rewind();
  EvaluationBatch batch;
  std::int64_t done = 0, longest = 0;
  if (progress) progress(kPhaseEvaluationSet, 0, set.size());
  while (true) {
    throwIfCancelled(cancel, std::string(kPhaseEvaluationSet) + ", after " + std::to_string(done) +
                                 " of " + std::to_string(set.size()) + " sequences");
    if (!set.next(batch)) break;
    accumulator.add(healthBatchOf(model, batch.ids, in));
    longest = std::max(longest, batch.ids.ne(in.pad).sum(1).max().item<std::int64_t>());
    done += batch.ids.size(0);
    if (progress) progress(kPhaseEvaluationSet, done, set.size());
  }
  return longest;
}

std::vector<double> valuesOf(const at::Tensor& t) {
  const auto d = t.to(torch::kCPU, torch::kFloat64).contiguous();
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

/// The options' thresholds, or the run's (log.health_sink_epsilon, log.health_collapse_nats).
core::HealthSettings settingsOf(const HealthJobOptions& options, const core::RunConfig& config) {
  core::HealthSettings settings;
  settings.sinkEpsilon = options.sinkEpsilon.value_or(config.log.healthSinkEpsilon);
  settings.collapseNats = options.collapseNats.value_or(config.log.healthCollapseNats);
  settings.probabilityMaps =
      core::patternMapsOf(config.attention) == core::AttentionMaps::Probabilities;
  return settings;
}

/// The rotary spectral norms into the report (core/health/rotary_spectral.h); nothing for a
/// model without rotary positions.
void fillRotarySpectral(HealthReport& r, core::MaskedLanguageModelImpl& model,
                        const core::ModelConfig& config, const AnalysisProgress& progress,
                        const std::atomic<bool>* cancel) {
  if (config.position != core::PositionEncoding::Rope) return;
  const int L = model.layerCount();
  const int H = model.layer(0)->attention()->heads();
  const auto rotary =
      core::rotaryQkSpectralNorms(model, config, r.longestSequence, [&](int layer, int head) {
        if (progress) progress(kPhaseSpectralNorms, layer * H + head + 1, L * H + 1);
        throwIfCancelled(cancel, std::string(kPhaseSpectralNorms) + ", after layer " +
                                     std::to_string(layer) + " head " + std::to_string(head));
      });
  r.rotarySpectralNorm = valuesOf(rotary.norm);
  const auto offsets = rotary.offset.contiguous();
  r.rotarySpectralOffset.assign(offsets.data_ptr<std::int64_t>(),
                                offsets.data_ptr<std::int64_t>() + offsets.numel());
  for (int l = 0; l < L; ++l) {
    r.rotaryReach.push_back(core::rotaryReach(config, l, r.longestSequence));
    r.rotaryTheta.push_back(core::rotaryTheta(config, l));
  }
}

/// The result's numbers into the report, and each massive entry's piece (the set read again,
/// without the model).
void fillReport(HealthReport& r, const core::AttentionHealth& h, EvaluationSet& set,
                const ModelInputs& in) {
  r.sequences = h.sequences;
  r.rows = h.rows;
  for (int c = 0; c < core::kSinkClasses; ++c)
    r.classes.push_back(core::sinkClassName(static_cast<core::SinkClass>(c)));
  r.classMass = valuesOf(h.classMass);
  r.sinkRate = valuesOf(h.sinkRate);
  r.sinkRateByLayer = valuesOf(h.sinkRateByLayer);
  r.topKeyMass = valuesOf(h.topKeyMass);
  for (const double c : valuesOf(h.topKeyClass)) r.topKeyClass.push_back(static_cast<int>(c));
  r.entropyMean = valuesOf(h.entropyMean);
  r.entropyMin = valuesOf(h.entropyMin);
  r.collapsedShare = valuesOf(h.collapsedShare);
  r.logitMax = valuesOf(h.logitMax);
  r.medianAbs = valuesOf(h.medianAbs);
  r.massiveRatio = valuesOf(h.massiveRatio);
  r.rankResidual = valuesOf(h.rankResidual);
  r.meanCosine = valuesOf(h.meanCosine);
  for (const auto& layer : h.massive) {
    std::array<HealthMassiveEntry, 3> entries;
    for (size_t i = 0; i < layer.size(); ++i)
      entries[i] = {
          layer[i].magnitude, layer[i].sequence, layer[i].position, layer[i].dimension, {}};
    r.massive.push_back(entries);
  }
  set.rewind();
  EvaluationBatch batch;
  std::int64_t first = 0;
  while (set.next(batch)) {
    const auto B = batch.ids.size(0), T = batch.ids.size(1);
    for (auto& layer : r.massive)
      for (auto& e : layer)
        if (e.sequence >= first && e.sequence < first + B && e.position >= 0 && e.position < T)
          e.token = in.pieces[static_cast<size_t>(
              batch.ids[e.sequence - first][e.position].item<std::int64_t>())];
    first += B;
  }
}

}  // namespace

HealthReport measureHealth(const HealthJobOptions& options, const SelectedCheckpoint& selected,
                           const AnalysisProgress& progress, const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  const auto tell = [&progress](const char* phase, std::int64_t done, std::int64_t total) {
    if (progress) progress(phase, done, total);
  };
  tell(kPhaseLoadCheckpoint, 0, 1);
  throwIfCancelled(cancel, "loading " + selected.checkpoint.string());
  HealthReport r;
  ModelInputs in;
  std::optional<EvaluationSet> set;
  core::RunConfig config;
  {
    // The inspector gives the configuration, tokenizer and evaluation set; its model is
    // released before the job loads the one it measures (one model in memory at a time).
    core::AttentionInspector inspector(selected.checkpoint);
    tell(kPhaseLoadCheckpoint, 1, 1);
    throwIfCancelled(cancel, "loaded " + selected.checkpoint.string());
    config = inspector.config();
    r.configToml = inspector.configToml();
    const auto& tokenizer = inspector.tokenizer();
    for (int id = 0; id < tokenizer.vocabSize(); ++id)
      in.pieces.push_back(tokenizer.displayPiece(id));
    in.pad = tokenizer.specialIds().pad;
    if (config.attention.conv == core::ConvAttention::OneD)
      in.fixedLength = config.data.sequenceLength;
    set.emplace(inspector, selected.runDir,
                EvaluationSpec{options.text, options.maxSequences, options.batchSize}, progress,
                cancel);
  }
  throwIfCancelled(cancel, kPhaseLoadWeights);
  tell(kPhaseLoadWeights, 0, 1);
  auto model = loadModel(selected.checkpoint, config, static_cast<int>(in.pieces.size()),
                         static_cast<int>(in.pad));
  tell(kPhaseLoadWeights, 1, 1);
  const core::HealthSettings settings = settingsOf(options, config);
  core::HealthAccumulator accumulator(settings);
  r.longestSequence = accumulate(*model, *set, in, accumulator, progress, cancel);
  throwIfCancelled(cancel, kPhaseSpectralNorms);
  tell(kPhaseSpectralNorms, 0, 1);
  r.spectralNorm = valuesOf(core::qkSpectralNorms(*model));
  fillRotarySpectral(r, *model, config.model, progress, cancel);
  tell(kPhaseSpectralNorms, 1, 1);
  r.source = {selected.runDir.string(), config.run.name, selected.checkpoint.string(),
              selected.step, core::mapNormalisationText(core::patternMapsOf(config.attention))};
  r.availableSteps = selected.availableSteps;
  r.evaluationKind = set->kind();
  r.evaluationDescription = set->description();
  r.skipped = set->skipped();
  r.sinkEpsilon = settings.sinkEpsilon;
  r.collapseNats = settings.collapseNats;
  r.spectralIterations = core::kSpectralIterations;
  r.layers = model->layerCount();
  r.heads = config.model.heads;
  fillReport(r, accumulator.result(), *set, in);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

HealthJobResult runHealthJob(const HealthJobOptions& options, const fs::path& out,
                             const AnalysisProgress& progress, const std::atomic<bool>* cancel) {
  checkTextFile(options.text);
  checkSettings(options);
  // The checkpoint is chosen once: a run still training may write a newer one meanwhile.
  const auto selected = selectCheckpoint(options.run, options.step);
  HealthJobOptions chosen = options;
  chosen.step = selected.step;
  const fs::path folder =
      out.empty() ? reportFolder(selected.runDir, ReportKind::Health, selected.step) : out;
  std::error_code ec;
  const bool existed = fs::exists(folder, ec);
  prepareReportFolder(folder);  // a folder that takes no file fails now, not after the work
  try {
    HealthJobResult result{measureHealth(chosen, selected, progress, cancel), folder, {}};
    throwIfCancelled(cancel, "writing the report");
    result.files = writeHealthReport(result.report, folder);
    return result;
  } catch (...) {
    if (!existed) fs::remove(folder, ec);  // removes only an empty folder
    throw;
  }
}

}  // namespace attnlab::analysis
