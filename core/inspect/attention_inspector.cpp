#include "core/inspect/attention_inspector.h"

#include "core/config/model_identity.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/model/masked_lm.h"
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
  std::unique_ptr<SentencePieceTokenizer> tokenizer;
  MaskedLanguageModel model{nullptr};
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

AttentionInspector::AttentionInspector(const fs::path& checkpoint, const fs::path& tokenizerModel)
    : m_state(std::make_unique<State>()) {
  auto& s = *m_state;
  const CheckpointData data = CheckpointStore::load(checkpoint);
  s.checkpoint = checkpoint;
  s.step = data.step;
  s.configToml = data.metadata.configToml;
  s.config = parseRunConfig(s.configToml, checkpoint.string() + " (stored configuration)");
  checkBelongsToRun(checkpoint, s.config);

  fs::path tokenizerPath = tokenizerModel;
  if (tokenizerPath.empty()) {
    const fs::path runDirModel = checkpoint.parent_path().parent_path() / "tokenizer.model";
    const auto recorded = data.metadata.attributes.find("tokenizer_model");
    std::error_code ec;
    tokenizerPath = fs::is_regular_file(runDirModel, ec)         ? runDirModel
                    : recorded != data.metadata.attributes.end() ? fs::path(recorded->second)
                                                                 : runDirModel;
  }
  s.tokenizer =
      std::make_unique<SentencePieceTokenizer>(SentencePieceTokenizer::load(tokenizerPath));

  // Module constructors draw their initial weights from LibTorch's global generator; the
  // checkpoint replaces every one of them. Built inside seededConstruction, the draws take
  // the global-generator lock and leave its state as it was, so an inspection made while a
  // run trains in the same process (the app) cannot change that run's numbers.
  (void)seededConstruction(s.config.run.seed, [&] {
    s.model = MaskedLanguageModel(s.config.model, s.config.attention, s.config.data.sequenceLength,
                                  s.tokenizer->vocabSize(), s.tokenizer->specialIds().pad);
  });
  torch::NoGradGuard noGrad;
  for (auto& p : s.model->named_parameters()) {
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
  s.model->eval();
}

AttentionInspector::~AttentionInspector() = default;
AttentionInspector::AttentionInspector(AttentionInspector&&) noexcept = default;
AttentionInspector& AttentionInspector::operator=(AttentionInspector&&) noexcept = default;

namespace {}  // namespace

Inspection AttentionInspector::inspect(const std::string& text, const InspectOptions& options) {
  auto& s = *m_state;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw DataError("--text", "the text to inspect is empty");
  }
  Inspection result;
  result.checkpoint = s.checkpoint;
  result.step = s.step;
  result.text = text;
  result.configToml = s.configToml;

  const auto& special = s.tokenizer->specialIds();
  const bool fixedLength = s.config.attention.conv == ConvAttention::OneD;
  const int limit = fixedLength ? s.config.data.sequenceLength : s.config.model.maxPositions;
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
  for (const auto id : ids) result.pieces.push_back(s.tokenizer->idToPiece(static_cast<int>(id)));
  result.ids = ids;

  torch::NoGradGuard noGrad;
  const auto input = torch::tensor(ids, torch::kLong).unsqueeze(0);
  const auto mask = input.ne(special.pad);
  AttentionCapture capture;
  capture.wantProbabilities = true;
  capture.wantScores = options.scores;
  ForwardOptions forward;
  forward.capture = &capture;
  MlmOutput unused;
  s.model->encodeWith(input, mask, forward, unused);
  if (options.stacked) {
    result.probabilities = stackLayers(capture.probabilities);
    if (options.scores) result.scores = stackLayers(capture.scores);
  } else {
    result.probabilityLayers = unbatchedLayers(capture.probabilities);
    result.scoreLayers = unbatchedLayers(capture.scores);
  }
  if (options.asaMasks && s.model->hasAdversaries()) {
    ForwardOptions adversarial;
    adversarial.adversarial = true;
    MlmOutput adv;
    s.model->encodeWith(input, mask, adversarial, adv);
    result.asaMasks = stackLayers(adv.adversarialMasks);
  }
  return result;
}

at::Tensor AttentionInspector::probabilitiesOf(const at::Tensor& ids) {
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
  torch::NoGradGuard noGrad;
  auto input = ids;
  const bool fixedLength = s.config.attention.conv == ConvAttention::OneD;
  if (fixedLength && length < s.config.data.sequenceLength) {
    input = torch::constant_pad_nd(ids, {0, s.config.data.sequenceLength - length},
                                   s.tokenizer->specialIds().pad);
  }
  const auto mask = input.ne(s.tokenizer->specialIds().pad);
  AttentionCapture capture;
  capture.wantProbabilities = true;
  ForwardOptions options;
  options.capture = &capture;
  MlmOutput unused;
  s.model->encodeWith(input, mask, options, unused);
  auto probabilities = torch::stack(capture.probabilities).to(torch::kFloat);
  if (probabilities.size(-1) != length) {
    probabilities = probabilities.narrow(-1, 0, length).narrow(-2, 0, length);
  }
  return probabilities.contiguous();
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
const SentencePieceTokenizer& AttentionInspector::tokenizer() const {
  return *m_state->tokenizer;
}
bool AttentionInspector::hasAsaMasks() const {
  return m_state->model->hasAdversaries();
}
int AttentionInspector::maxLength() const {
  const auto& c = m_state->config;
  return c.attention.conv == ConvAttention::OneD ? c.data.sequenceLength : c.model.maxPositions;
}

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
    auto write = [&root](const std::string& name, const at::Tensor& t) {
      if (!t.defined()) return;
      std::vector<std::uint64_t> dims(t.sizes().begin(), t.sizes().end());
      root.writeArray(name, ElementType::Float32, t.data_ptr<float>(), dims);
    };
    write("probabilities", r.probabilities);
    write("scores", r.scores);
    write("asa_masks", r.asaMasks);
    root.writeString("config", r.configToml);
  }
  std::error_code ec;
  fs::rename(tmp, out, ec);
  if (ec) throw RunLogError(out.string(), "cannot move the inspection into place: " + ec.message());
}

}  // namespace attnlab::core
