#include "core/inspect/attention_inspector.h"

#include "core/config/model_identity.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/data/tokenizer_provider.h"
#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/health/attention_health.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/hf_bert_import.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/pretrained/pretrained_folder.h"
#include "core/runtime/engine_random.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <torch/torch.h>

#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

// [1, ...] per layer -> [L, ...] float32, contiguous: one copy (stack) and no conversion when
// the layers are already float32, as the model's are.
at::Tensor stackLayers(std::vector<at::Tensor>& layers) {
  at::Tensor stacked = torch::stack(layers).squeeze(1);
  layers.clear();  // the per-layer tensors are freed before the caller copies anything else
  if (stacked.scalar_type() != torch::kFloat) stacked = stacked.to(torch::kFloat);
  return stacked.contiguous();
}

// [1, ...] per layer -> [...] float32 contiguous per layer: views of the model's own tensors
// where they are already float32 and contiguous (they are), so nothing is copied.
std::vector<at::Tensor> unbatchedLayers(std::vector<at::Tensor>& layers) {
  std::vector<at::Tensor> out;
  out.reserve(layers.size());
  for (auto& layer : layers) out.push_back(layer.squeeze(0).to(torch::kFloat).contiguous());
  layers.clear();
  return out;
}

}  // namespace

struct AttentionInspector::State {
  fs::path checkpoint;
  std::int64_t step = 0;
  RunConfig config;
  std::string configToml;
  std::unique_ptr<Tokenizer> tokenizer;
  MaskedLanguageModel model{nullptr};
  bool hasMlmHead = true;  ///< false: a model folder's BertModel / RobertaModel alone
};

namespace {

// A checkpoint inside <run>/checkpoints/ must be the model the run's config.toml describes:
// one copied in from another run would otherwise be read with this run's tokenizer and
// reported under this run's name (a silent mix). Refused with the keys that differ.
void checkBelongsToRun(const fs::path& checkpoint, const RunConfig& stored) {
  const fs::path folder = checkpoint.parent_path();
  if (folder.filename() != "checkpoints") return;
  const fs::path runConfig = folder.parent_path() / "config.toml";
  std::error_code ec;
  if (!fs::is_regular_file(runConfig, ec)) return;
  RunConfig run;
  try {
    run = loadRunConfig(runConfig);
  } catch (const std::exception&) {
    return;  // the checkpoint's own configuration is complete; a damaged config.toml is
             // the trainer's to report when the run resumes
  }
  const std::vector<std::string> differences = modelDifferences(stored, run);
  if (differences.empty()) return;
  std::string list;
  for (const auto& d : differences) list += (list.empty() ? "" : "; ") + d;
  throw CheckpointError(checkpoint.string(), "holds a different model than its run's " +
                                                 runConfig.string() + " (" + list +
                                                 "): was it copied in from another run?");
}

}  // namespace

namespace {

// The run's tokenizer: `given`, else a run started from a pretrained model's copy of its
// tokenizer, else <run dir>/tokenizer.model, else the one the checkpoint recorded.
std::unique_ptr<Tokenizer> tokenizerOfRun(const fs::path& checkpoint, const CheckpointData& data,
                                          const RunConfig& config, const fs::path& given) {
  if (!given.empty())
    return std::make_unique<SentencePieceTokenizer>(SentencePieceTokenizer::load(given));
  const fs::path runDir = checkpoint.parent_path().parent_path();
  const fs::path runDirModel = runDir / "tokenizer.model";
  const auto recorded = data.metadata.attributes.find("tokenizer_model");
  std::error_code ec;
  const fs::path spModel = fs::is_regular_file(runDirModel, ec)         ? runDirModel
                           : recorded != data.metadata.attributes.end() ? fs::path(recorded->second)
                                                                        : runDirModel;
  return loadRunTokenizer(config, runDir, spModel);
}

void copyCheckpointParameters(MaskedLanguageModel& model, const CheckpointData& data,
                              const fs::path& checkpoint) {
  torch::NoGradGuard noGrad;
  for (auto& p : model->named_parameters()) {
    const auto it = data.tensors.find("model/" + p.key());
    if (it == data.tensors.end()) {
      throw CheckpointError(checkpoint.string(), "has no parameter '" + p.key() + "'");
    }
    if (it->second.sizes() != p.value().sizes()) {
      throw CheckpointError(checkpoint.string(),
                            "parameter " + p.key() + " has shape " + c10::str(it->second.sizes()) +
                                " but the stored configuration builds " +
                                c10::str(p.value().sizes()) + " (is the tokenizer the run's own?)");
    }
    p.value().copy_(it->second);
  }
}

}  // namespace

AttentionInspector::AttentionInspector(const fs::path& checkpoint, const fs::path& tokenizerModel)
    : m_state(std::make_unique<State>()) {
  if (isPretrainedModelFolder(checkpoint)) {
    openModelFolder(checkpoint);
    return;
  }
  auto& s = *m_state;
  const CheckpointData data = CheckpointStore::load(checkpoint);
  s.checkpoint = checkpoint;
  s.step = data.step;
  s.configToml = data.metadata.configToml;
  s.config = parseRunConfig(s.configToml, checkpoint.string() + " (stored configuration)");
  checkBelongsToRun(checkpoint, s.config);
  s.tokenizer = tokenizerOfRun(checkpoint, data, s.config, tokenizerModel);

  // Module constructors draw their initial weights from LibTorch's global generator; the
  // checkpoint replaces every one of them. Built inside seededConstruction, the draws take
  // the global-generator lock and leave its state as it was, so an inspection made while a
  // run trains in the same process (the app) cannot change that run's numbers.
  (void)seededConstruction(s.config.run.seed, [&] {
    s.model = MaskedLanguageModel(s.config.model, s.config.attention, s.config.data.sequenceLength,
                                  s.tokenizer->vocabSize(), s.tokenizer->specialIds().pad,
                                  ParameterInit::Replaced);
  });
  copyCheckpointParameters(s.model, data, checkpoint);
  s.model->eval();
}

void AttentionInspector::openModelFolder(const fs::path& folder) {
  auto& s = *m_state;
  std::optional<PretrainedModel> pretrained;
  // Under the generator's lock, as above: the import builds a module before its weights.
  (void)seededConstruction(0, [&] { pretrained.emplace(loadHuggingFaceBert(folder)); });
  s.tokenizer = loadHuggingFaceTokenizer(folder);
  if (s.tokenizer->vocabSize() > pretrained->vocabSize)
    throw DataError(folder.string(), "the tokenizer has " +
                                         std::to_string(s.tokenizer->vocabSize()) +
                                         " pieces but config.json's vocab_size is " +
                                         std::to_string(pretrained->vocabSize));
  s.checkpoint = folder;
  s.step = 0;
  s.config = pretrainedRunConfig(*pretrained);
  s.configToml = toToml(s.config);
  s.model = pretrained->network;
  s.hasMlmHead = pretrained->hasMlmHead;
  s.model->eval();
}

AttentionInspector::~AttentionInspector() = default;
AttentionInspector::AttentionInspector(AttentionInspector&&) noexcept = default;
AttentionInspector& AttentionInspector::operator=(AttentionInspector&&) noexcept = default;

namespace {

/// Replaces the asked positions by <mask> (never <s>, </s> or padding), keeping the tokens.
void maskPositions(Inspection& result, const std::vector<std::int64_t>& positions, int maskId) {
  result.originalIds = result.ids;
  for (const auto p : positions) {
    if (p <= 0 || p >= result.realTokens - 1) continue;
    if (result.ids[static_cast<size_t>(p)] == maskId) continue;
    result.ids[static_cast<size_t>(p)] = maskId;
    result.maskedPositions.push_back(p);
  }
}

/// Norms of every layer of a one-sequence pass, the batch axis removed.
std::vector<LayerNorms> sequenceNorms(ActivationCache& cache, int layers) {
  std::vector<LayerNorms> out;
  const auto mixing = cache.takeLayers("attn.mixing", layers);
  const auto valueNorms = cache.takeLayers("attn.value_norms", layers);
  const auto valueGram = cache.takeLayers("attn.value_gram", layers);
  for (int l = 0; l < layers; ++l) {
    LayerNorms n = attentionNorms(mixing[l], valueNorms[l], valueGram[l]);
    out.push_back({n.valueNorms.squeeze(0), n.headNorms.squeeze(0), n.layerNorms.squeeze(0)});
  }
  return out;
}

/// The hook points of norm-based attention (attention_norms.h).
void requestNorms(HookRequest& request) {
  request.capture("blocks.*.attn.mixing")
      .capture("blocks.*.attn.value_norms")
      .capture("blocks.*.attn.value_gram");
}

/// Each layer's output gate of a one-sequence pass as [H, T] float32: the hook holds
/// [1, H, T] (one gate per head) or [1, H, T, d] (one per channel, averaged here so that
/// both kinds read as one number per head and token).
std::vector<at::Tensor> sequenceGates(ActivationCache& cache, int layers) {
  std::vector<at::Tensor> out;
  for (auto& gate : cache.takeLayers("attn.gate", layers)) {
    const at::Tensor perHead = gate.dim() == 4 ? gate.mean(-1) : gate;
    out.push_back(perHead.squeeze(0).to(torch::kFloat).contiguous());
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> AttentionInspector::encodeForInspection(const std::string& text,
                                                                  Inspection& result) const {
  const auto& s = *m_state;
  const auto& special = s.tokenizer->specialIds();
  const bool fixedLength = s.config.attention.conv == ConvAttention::OneD;
  const int limit = maxLength();
  std::vector<std::int64_t> ids = {special.bos};
  for (const int id : s.tokenizer->encode(text)) {
    if (static_cast<int>(ids.size()) >= limit - 1) {
      result.truncated = true;
      break;
    }
    ids.push_back(id);
  }
  ids.push_back(special.eos);
  result.realTokens = static_cast<std::int64_t>(ids.size());
  // 1-D convolved attention was built for one length: pad to it.
  if (fixedLength) ids.resize(static_cast<size_t>(limit), special.pad);
  return ids;
}

Inspection AttentionInspector::tokenize(const std::string& text) const {
  const auto& s = *m_state;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw DataError("--text", "the text to inspect is empty");
  }
  Inspection result;
  result.checkpoint = s.checkpoint;
  result.step = s.step;
  result.text = text;
  result.configToml = s.configToml;
  result.ids = encodeForInspection(text, result);
  for (const auto id : result.ids)
    result.pieces.push_back(s.tokenizer->displayPiece(static_cast<int>(id)));
  return result;
}

Inspection AttentionInspector::inspect(const std::string& text, const InspectOptions& options) {
  auto& s = *m_state;
  Inspection result = tokenize(text);
  maskPositions(result, options.maskPositions, s.tokenizer->specialIds().mask);
  result.pieces.clear();
  for (const auto id : result.ids)
    result.pieces.push_back(s.tokenizer->displayPiece(static_cast<int>(id)));

  torch::NoGradGuard noGrad;
  const auto input = torch::tensor(result.ids, torch::kLong).unsqueeze(0);
  const auto mask = input.ne(s.tokenizer->specialIds().pad);
  result.hasMlmHead = s.hasMlmHead;
  const bool lens = options.lensTop > 0 && s.hasMlmHead;
  const bool gated = s.config.attention.outputGate != OutputGate::None;
  HookRequest request;
  request.capture("blocks.*.attn.probs");
  if (gated) request.capture("blocks.*.attn.gate");
  if (options.scores) request.capture("blocks.*.attn.scores");
  if (options.norms) requestNorms(request);
  if (lens) request.capture("blocks.*.resid_post");
  HookSession hooks(request);
  ForwardOptions forward;
  forward.hooks = &hooks;
  MlmOutput unused;
  const auto finalHidden = s.model->encodeWith(input, mask, forward, unused);
  auto& cache = hooks.cache();
  const int layers = s.model->layerCount();
  auto probabilities = cache.takeLayers("attn.probs", layers);
  std::vector<at::Tensor> scores;
  if (options.scores) scores = cache.takeLayers("attn.scores", layers);
  if (options.stacked) {
    result.probabilities = stackLayers(probabilities);
    if (options.scores) result.scores = stackLayers(scores);
  } else {
    result.probabilityLayers = unbatchedLayers(probabilities);
    result.scoreLayers = unbatchedLayers(scores);
  }
  if (gated) result.gateLayers = sequenceGates(cache, layers);
  result.maps = maps();
  result.sinkLogits = sinkLogits();
  if (options.norms) result.norms = sequenceNorms(cache, layers);
  if (lens) {
    const LensInput hidden{cache.takeLayers("resid_post", layers), finalHidden,
                           s.model->hasSqueezeExcitation()};
    result.lens = lensPredictions(*s.model, hidden, torch::tensor(result.originalIds, torch::kLong),
                                  options.lensTop);
  }
  if (options.asaMasks && s.model->hasAdversaries()) result.asaMasks = asaMasksOf(input, mask);
  return result;
}

at::Tensor AttentionInspector::probabilitiesOf(const at::Tensor& ids) {
  return captureBatch(ids, BatchRequest{}).probabilities;
}

BatchCapture AttentionInspector::captureBatch(const at::Tensor& ids, const BatchRequest& request) {
  auto& s = *m_state;
  if (ids.dim() != 2 || ids.scalar_type() != torch::kLong) {
    throw DataError("attention batch", "expected [batch, length] int64 token ids, got " +
                                           c10::str(ids.sizes()) + " " +
                                           std::string(c10::toString(ids.scalar_type())));
  }
  const std::int64_t length = ids.size(1);
  if (length > maxLength()) {
    throw DataError("attention batch", "sequences of " + std::to_string(length) +
                                           " tokens are longer than the model's " +
                                           std::to_string(maxLength()));
  }
  if (request.lensPositions.defined()) requireMlmHead("the logit lens");
  torch::NoGradGuard noGrad;
  auto input = ids;
  const bool fixedLength = s.config.attention.conv == ConvAttention::OneD;
  if (fixedLength && length < s.config.data.sequenceLength) {
    input = torch::constant_pad_nd(ids, {0, s.config.data.sequenceLength - length},
                                   s.tokenizer->specialIds().pad);
  }
  const auto mask = input.ne(s.tokenizer->specialIds().pad);
  const bool hidden = request.lensPositions.defined() || request.hiddenStates;
  HookRequest hookRequest;
  if (request.probabilities) hookRequest.capture("blocks.*.attn.probs");
  if (request.norms) requestNorms(hookRequest);
  if (hidden) hookRequest.capture("blocks.*.resid_post");
  if (request.hiddenStates) hookRequest.capture("embed");
  if (request.queryKeys) hookRequest.capture("blocks.*.attn.q").capture("blocks.*.attn.k");
  HookSession hooks(hookRequest);
  ForwardOptions options;
  options.hooks = &hooks;
  MlmOutput unused;
  const auto finalHidden = s.model->encodeWith(input, mask, options, unused);
  auto& cache = hooks.cache();
  BatchCapture out = cutBack(cache, request, length);
  // The analyses read rows as distributions; softmax maps are left bit for bit as they were.
  if (request.probabilities && maps() != AttentionMaps::Probabilities)
    normaliseMapInPlace(out.probabilities);  // the batch is this pass's own
  const int layers = s.model->layerCount();
  std::vector<at::Tensor> layerOutputs;
  if (hidden) layerOutputs = cache.takeLayers("resid_post", layers);
  if (request.hiddenStates) {
    std::vector<at::Tensor> states = {cache.take("embed")};
    states.insert(states.end(), layerOutputs.begin(), layerOutputs.end());
    out.hiddenStates = torch::stack(states).narrow(2, 0, length).to(torch::kFloat).contiguous();
  }
  if (request.lensPositions.defined()) {
    // Flat positions of [B, T] moved to the padded length the model ran at.
    const auto padded = input.size(1);
    const auto positions = request.lensPositions.div(length, "floor") * padded +
                           request.lensPositions.remainder(length);
    const LensInput lens{std::move(layerOutputs), finalHidden, s.model->hasSqueezeExcitation()};
    out.lens = lensAt(*s.model, lens, positions, request.lensTargets);
  }
  return out;
}

ActivationCache AttentionInspector::captureActivations(const at::Tensor& ids,
                                                       const HookRequest& request) {
  auto& s = *m_state;
  if (ids.dim() != 2 || ids.scalar_type() != torch::kLong || ids.size(1) > maxLength())
    throw DataError("activations", "expected [batch, length <= " + std::to_string(maxLength()) +
                                       "] int64 token ids, got " + c10::str(ids.sizes()));
  torch::NoGradGuard noGrad;
  const auto mask = ids.ne(s.tokenizer->specialIds().pad);
  HookSession hooks(request);
  ForwardOptions options;
  options.hooks = &hooks;
  if (s.hasMlmHead) {
    // The MLM head over every real position gives "mlm.logits" its rows.
    s.model->forward(ids, mask, ids.masked_fill(mask.logical_not(), -100), options);
  } else {
    MlmOutput unused;
    s.model->encodeWith(ids, mask, options, unused);
  }
  ActivationCache cache = std::move(hooks.cache());
  if (s.model->hasAdversaries()) {
    // ASA's keep-masks exist in its adversarial pass only: a second pass for them.
    HookSession adversarialHooks(request);
    ForwardOptions adversarial;
    adversarial.adversarial = true;
    adversarial.hooks = &adversarialHooks;
    MlmOutput adv;
    s.model->encodeWith(ids, mask, adversarial, adv);
    for (const auto& name : adversarialHooks.cache().names())
      if (name.find(".asa.") != std::string::npos)
        cache.put(name, adversarialHooks.cache().at(name));
  }
  return cache;
}

at::Tensor AttentionInspector::asaMasksOf(const at::Tensor& input, const at::Tensor& mask) {
  auto& s = *m_state;
  HookRequest request;
  request.capture("blocks.*.asa.keep");
  HookSession hooks(request);
  ForwardOptions adversarial;
  adversarial.adversarial = true;
  adversarial.hooks = &hooks;
  MlmOutput adv;
  s.model->encodeWith(input, mask, adversarial, adv);
  auto masks = hooks.cache().takeLayers("asa.keep", s.model->layerCount());
  return stackLayers(masks);
}

GatedLoss AttentionInspector::gatedLoss(const at::Tensor& ids, const MaskedTargets& masked,
                                        const at::Tensor& gates, bool gradient) {
  auto& s = *m_state;
  if (ids.dim() != 2 || ids.scalar_type() != torch::kLong || ids.size(1) > maxLength())
    throw DataError("gated loss", "expected [batch, length <= " + std::to_string(maxLength()) +
                                      "] int64 token ids, got " + c10::str(ids.sizes()));
  requireMlmHead("the MLM loss (head importance, ablation and pruning)");
  const std::int64_t length = ids.size(1);
  auto input = ids;
  MaskedTargets moved = masked;
  if (s.config.attention.conv == ConvAttention::OneD && length < s.config.data.sequenceLength) {
    // A 1-D convolved model runs at its fixed length: pad, and move the flat positions.
    input = torch::constant_pad_nd(ids, {0, s.config.data.sequenceLength - length},
                                   s.tokenizer->specialIds().pad);
    moved.positions =
        masked.positions.div(length, "floor") * input.size(1) + masked.positions.remainder(length);
  }
  return gatedMlmLoss(*s.model, input, input.ne(s.tokenizer->specialIds().pad), moved, gates,
                      gradient);
}

BatchCapture AttentionInspector::cutBack(ActivationCache& cache, const BatchRequest& request,
                                         std::int64_t length) const {
  BatchCapture out;
  auto cut = [length](const at::Tensor& t, std::initializer_list<int> dims) {
    at::Tensor r = t;
    for (const int d : dims)
      if (r.size(d) != length) r = r.narrow(d, 0, length);
    return r.contiguous();
  };
  const int layers = m_state->model->layerCount();
  auto stacked = [&](const char* suffix) {
    auto perLayer = cache.takeLayers(suffix, layers);
    return torch::stack(perLayer).to(torch::kFloat);
  };
  if (request.probabilities) out.probabilities = cut(stacked("attn.probs"), {-1, -2});
  if (request.queryKeys) {
    out.queries = cut(stacked("attn.q"), {-2});
    out.keys = cut(stacked("attn.k"), {-2});
  }
  if (!request.norms) return out;
  const auto mixing = cache.takeLayers("attn.mixing", layers);
  const auto valueNorms = cache.takeLayers("attn.value_norms", layers);
  const auto valueGram = cache.takeLayers("attn.value_gram", layers);
  for (int l = 0; l < layers; ++l) {
    out.norms.push_back(
        attentionNorms(cut(mixing[l], {-1, -2}), cut(valueNorms[l], {-1}), cut(valueGram[l], {1})));
  }
  return out;
}

std::int64_t AttentionInspector::step() const {
  return m_state->step;
}
const fs::path& AttentionInspector::checkpoint() const {
  return m_state->checkpoint;
}
const RunConfig& AttentionInspector::config() const {
  return m_state->config;
}
const std::string& AttentionInspector::configToml() const {
  return m_state->configToml;
}
const Tokenizer& AttentionInspector::tokenizer() const {
  return *m_state->tokenizer;
}
AttentionMaps AttentionInspector::maps() const {
  return attentionMapsOf(m_state->config.attention);
}
at::Tensor AttentionInspector::sinkLogits() const {
  auto& model = m_state->model;
  std::vector<at::Tensor> layers;
  for (int l = 0; l < model->layerCount(); ++l) {
    at::Tensor sink = model->layer(l)->attention()->sinkLogits();
    if (!sink.defined()) return {};
    layers.push_back(sink);
  }
  if (layers.empty()) return {};
  return torch::stack(layers).to(torch::kFloat).contiguous();
}
bool AttentionInspector::hasAsaMasks() const {
  return m_state->model->hasAdversaries();
}
bool AttentionInspector::hasMlmHead() const {
  return m_state->hasMlmHead;
}
void AttentionInspector::requireMlmHead(const std::string& what) const {
  if (m_state->hasMlmHead) return;
  throw DataError(m_state->checkpoint.string(),
                  "has no MLM head (a BertModel or RobertaModel saved without it), and " + what +
                      " needs one; its attention, rollout and norms are the checkpoint's own");
}
int AttentionInspector::maxLength() const {
  const auto& c = m_state->config;
  return c.attention.conv == ConvAttention::OneD ? c.data.sequenceLength : c.model.maxPositions;
}

namespace {

/// A float32 or int64 tensor as a dataset of its shape (nothing for an undefined one).
void writeTensor(hdf5::Group& group, const std::string& name, const at::Tensor& tensor) {
  if (!tensor.defined()) return;
  const auto type = tensor.scalar_type();
  const auto stored = type == torch::kLong || type == torch::kDouble ? type : torch::kFloat;
  const at::Tensor t = tensor.to(stored).contiguous();
  const std::vector<std::uint64_t> dims(t.sizes().begin(), t.sizes().end());
  const auto element = stored == torch::kLong     ? hdf5::ElementType::Int64
                       : stored == torch::kDouble ? hdf5::ElementType::Float64
                                                  : hdf5::ElementType::Float32;
  group.writeArray(name, element, t.data_ptr(), dims);
}

void writeNorms(hdf5::Group& root, const std::vector<LayerNorms>& norms) {
  if (norms.empty()) return;
  std::vector<at::Tensor> value, head, layer;
  for (const auto& n : norms) {
    value.push_back(n.valueNorms);
    head.push_back(n.headNorms);
    layer.push_back(n.layerNorms);
  }
  auto group = root.createGroup("norms");
  writeTensor(group, "value", torch::stack(value));
  writeTensor(group, "head", torch::stack(head));
  writeTensor(group, "layer", torch::stack(layer));
}

void writeLens(hdf5::Group& root, const std::optional<LensPredictions>& lens) {
  if (!lens) return;
  auto group = root.createGroup("lens");
  group.setIntAttribute("output_row", lens->outputRow ? 1 : 0);
  writeTensor(group, "top_ids", lens->topIds);
  writeTensor(group, "top_probabilities", lens->topProbabilities);
  writeTensor(group, "target_rank", lens->targetRank);
  writeTensor(group, "target_probability", lens->targetProbability);
}

}  // namespace

void writeInspection(const Inspection& r, const fs::path& out) {
  using hdf5::ElementType;
  const fs::path tmp = out.string() + ".tmp";
  {
    auto file = hdf5::File::create(tmp.string(), hdf5::ErrorDomain::RunLog, /*latestFormat=*/false);
    auto root = file.root();
    root.setStringAttribute("format", "attnlab-inspect");
    root.setIntAttribute("format_version", 1);
    root.setStringAttribute("checkpoint", r.checkpoint.string());
    root.setIntAttribute("step", r.step);
    root.setStringAttribute("text", r.text);
    root.setIntAttribute("real_tokens", r.realTokens);
    root.setIntAttribute("truncated", r.truncated ? 1 : 0);
    root.writeStrings("tokens", r.pieces);
    root.writeArray("token_ids", ElementType::Int64, r.ids.data(), {r.ids.size()});
    if (!r.maskedPositions.empty()) {
      root.writeArray("masked_positions", ElementType::Int64, r.maskedPositions.data(),
                      {r.maskedPositions.size()});
      root.writeArray("original_ids", ElementType::Int64, r.originalIds.data(),
                      {r.originalIds.size()});
    }
    writeTensor(root, "probabilities", r.probabilities);
    writeTensor(root, "scores", r.scores);
    writeTensor(root, "asa_masks", r.asaMasks);
    writeTensor(root, "rollout", r.rollout);
    writeNorms(root, r.norms);
    writeLens(root, r.lens);
    root.writeString("config", r.configToml);
  }
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec) throw RunLogError(out.string(), "cannot move the inspection into place: " + ec.message());
}

}  // namespace attnlab::core
