#include "core/pretrained/pretrained_folder.h"

#include "core/data/hashing.h"
#include "core/errors/error.h"
#include "core/pretrained/hf_bert_import.h"

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

// The files a Hugging Face folder's tokenizer is read from (core/pretrained/hf_tokenizer.h).
// The SentencePiece models: XLM-R's (read with tokenizer.json) and an AttnLab export's.
constexpr const char* kTokenizerFiles[] = {"tokenizer.json",
                                           "vocab.txt",
                                           "vocab.json",
                                           "merges.txt",
                                           "tokenizer_config.json",
                                           "special_tokens_map.json",
                                           "sentencepiece.bpe.model",
                                           "tokenizer.model"};

std::string bytesOf(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string(), "cannot be read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

fs::path canonicalModelFolder(const fs::path& folder) {
  std::error_code ec;
  const fs::path absolute = fs::weakly_canonical(fs::absolute(folder, ec), ec);
  return ec ? folder.lexically_normal() : absolute;
}

std::uint64_t pretrainedTokenizerFingerprint(const fs::path& folder) {
  Fnv1a64 hash;
  std::error_code ec;
  for (const char* name : kTokenizerFiles) {
    if (!fs::is_regular_file(folder / name, ec)) continue;
    hash.update(std::string_view(name));
    hash.update(bytesOf(folder / name));
  }
  return hash.value();
}

void copyPretrainedTokenizer(const fs::path& folder, const fs::path& into) {
  std::error_code ec;
  fs::create_directories(into, ec);
  if (ec) throw DataError(into.string(), "cannot create the folder: " + ec.message());
  for (const char* name : kTokenizerFiles) {
    if (!fs::is_regular_file(folder / name, ec)) continue;
    const fs::path temporary = into / (std::string(name) + ".tmp");
    fs::copy_file(folder / name, temporary, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(temporary, into / name, ec);
    if (ec) throw DataError((into / name).string(), "cannot copy the tokenizer: " + ec.message());
  }
}

void adoptPretrainedShapes(RunConfig& config, const PretrainedModel& model) {
  if (config.model.norm == NormPlacement::Pre && model.model.norm == NormPlacement::Post)
    throw ConfigError("model.norm", "pre: a model started from " + model.folder.string() +
                                        " (model.init_from) is post-LN, as BERT and RoBERTa are");
  config.model.norm = model.model.norm;
  config.model.layers = model.model.layers;
  config.model.hiddenSize = model.model.hiddenSize;
  config.model.heads = model.model.heads;
  config.model.ffnSize = model.model.ffnSize;
  config.model.maxPositions = model.model.maxPositions;
  config.model.layerNormEps = model.model.layerNormEps;
  config.model.positionEmbeddings = model.model.positionEmbeddings;
  // The architecture is the checkpoint's, like its shapes (BERT and RoBERTa: learned
  // positions, global attention, GELU, biases).
  config.model.position = model.model.position;
  config.model.ropeTheta = model.model.ropeTheta;
  config.model.ropeThetaLocal = model.model.ropeThetaLocal;
  config.model.attentionWindow = model.model.attentionWindow;
  config.model.globalEvery = model.model.globalEvery;
  config.model.feedForward = model.model.feedForward;
  config.model.bias = model.model.bias;
  config.model.firstAttentionNorm = model.model.firstAttentionNorm;
  config.tokenizer.vocabSize = model.vocabSize;
  if (config.data.sequenceLength > model.model.maxPositions)
    throw ConfigError("data.sequence_length",
                      std::to_string(config.data.sequenceLength) + " exceeds the " +
                          std::to_string(model.model.maxPositions) + " positions of " +
                          model.folder.string() + " (model.init_from)");
}

RunConfig pretrainedRunConfig(const PretrainedModel& model) {
  RunConfig config;
  config.data.sequenceLength = std::min(128, model.model.maxPositions);
  config.model.initFrom = canonicalModelFolder(model.folder).string();
  config.model.dropout = model.model.dropout;
  config.model.attentionDropout = model.model.attentionDropout;
  adoptPretrainedShapes(config, model);
  config.run.name = canonicalModelFolder(model.folder).filename().string();
  return config;
}

fs::path pretrainedWorkDir(const fs::path& folder) {
  const fs::path absolute = canonicalModelFolder(folder);
  const char* dataHome = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  fs::path base = dataHome != nullptr && *dataHome != '\0' ? fs::path(dataHome)
                  : home != nullptr && *home != '\0'       ? fs::path(home) / ".local/share"
                                                           : fs::temp_directory_path();
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(fnv1a64(absolute.string())));
  return base / "attnlab" / "models" /
         (absolute.filename().string() + "-" + std::string(hash).substr(0, 8));
}

void initialiseFromPretrained(MaskedLanguageModel& target, const PretrainedModel& source) {
  torch::NoGradGuard noGrad;
  auto params = target->named_parameters();
  for (const auto& p : source.network->named_parameters()) {
    if (!source.hasMlmHead && p.key().rfind("mlm_", 0) == 0) continue;  // not the checkpoint's
    auto* ours = params.find(p.key());
    if (ours == nullptr)
      throw ConfigError("model.init_from", "the run's model has no parameter " + p.key() +
                                               " for the one in " + source.folder.string());
    if (ours->sizes() != p.value().sizes())
      throw ConfigError("model.init_from",
                        p.key() + " is " + c10::str(ours->sizes()) + " in the run's model but " +
                            c10::str(p.value().sizes()) + " in " + source.folder.string());
    ours->copy_(p.value());
  }
}

}  // namespace attnlab::core
