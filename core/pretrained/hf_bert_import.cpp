#include "core/pretrained/hf_bert_import.h"

#include "core/errors/error.h"
#include "core/pretrained/hf_bert_names.h"
#include "core/pretrained/hf_checkpoint_files.h"
#include "core/pretrained/hf_modernbert_import.h"
#include "core/pretrained/safetensors_file.h"

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The fields that change the computation: honoured, or refused by name.
void checkSupported(const json& c, const std::string& where) {
  const auto text = [&](const char* key, const char* fallback) {
    return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : fallback;
  };
  const auto type = text("model_type", "");
  if (type != "bert" && type != "roberta" && type != "xlm-roberta")
    throw DataError(
        where, "model_type \"" + type + "\": bert, roberta, xlm-roberta and modernbert are read");
  if (text("hidden_act", "gelu") != "gelu")
    throw DataError(where, "hidden_act \"" + text("hidden_act", "") +
                               "\": AttnLab's encoder uses the exact (erf) GELU only");
  if (text("position_embedding_type", "absolute") != "absolute")
    throw DataError(where, "position_embedding_type \"" + text("position_embedding_type", "") +
                               "\": only learned absolute positions are read");
  const auto on = [&](const char* key) {
    return c.contains(key) && c[key].is_boolean() && c[key].get<bool>();
  };
  if (on("is_decoder") || on("add_cross_attention"))
    throw DataError(where, "is_decoder / add_cross_attention: an encoder is read, not a decoder");
}

ModelConfig modelOf(const json& c, const std::string& where) {
  ModelConfig m;
  m.layers = intField(c, "num_hidden_layers", where);
  m.hiddenSize = intField(c, "hidden_size", where);
  m.heads = intField(c, "num_attention_heads", where);
  m.ffnSize = intField(c, "intermediate_size", where);
  m.maxPositions = intField(c, "max_position_embeddings", where);
  m.layerNormEps = realField(c, "layer_norm_eps", 1e-12, where);
  m.dropout = realField(c, "hidden_dropout_prob", 0.1, where);
  m.attentionDropout = realField(c, "attention_probs_dropout_prob", 0.1, where);
  m.norm = NormPlacement::Post;
  m.positionEmbeddings = true;
  if (m.heads == 0 || m.hiddenSize % m.heads != 0)
    throw DataError(where, "num_attention_heads " + std::to_string(m.heads) +
                               " does not divide hidden_size " + std::to_string(m.hiddenSize));
  return m;
}

void loadWeights(PretrainedModel& m, const WeightFiles& file, const HfBertLayout& at) {
  torch::NoGradGuard noGrad;
  const std::string where = file.where;
  auto params = m.network->named_parameters();
  std::set<std::string> used;
  for (const auto& [ours, names] : hfBertParameterSources(m.model.layers, at)) {
    if (!m.hasMlmHead && ours.rfind("mlm_", 0) == 0) continue;
    std::vector<torch::Tensor> parts;
    for (const auto& name : names) {
      parts.push_back(tensorOf(file, name));
      used.insert(name);
    }
    assign(params[ours], parts.size() == 1 ? parts[0] : torch::cat(parts, 0), ours, where);
  }
  // Token type 0's embedding, which BERT and RoBERTa add to every token, folded into the
  // positions, which start at the model type's first used row.
  const std::string positionName = hfPositionTensor(at);
  const std::string typeName = hfTokenTypeTensor(at);
  const auto positions = tensorOf(file, positionName).slice(0, at.positionOffset);
  const auto types = tensorOf(file, typeName);
  used.insert({positionName, typeName});
  assign(params["position_embedding.weight"], positions + types[0], "position_embedding.weight",
         where);
  static const std::set<std::string> tied = {
      "cls.predictions.decoder.weight", "cls.predictions.decoder.bias",
      "lm_head.decoder.weight",         "lm_head.decoder.bias",
      "bert.embeddings.position_ids",   "roberta.embeddings.position_ids",
      "embeddings.position_ids"};
  for (const auto& f : file.files)
    for (const auto& e : f.entries())
      if (!used.count(e.name) && !tied.count(e.name)) m.unused.push_back(e.name);
}

}  // namespace

PretrainedModel describeHuggingFaceBert(const fs::path& folder) {
  PretrainedModel m;
  m.folder = folder;
  const json config = readHfConfig(folder);
  const std::string where = (folder / "config.json").string();
  if (config.contains("model_type") && config["model_type"] == "modernbert")
    return describeModernBert(config, folder);
  checkSupported(config, where);
  m.modelType = config["model_type"].get<std::string>();
  m.model = modelOf(config, where);
  m.vocabSize = intField(config, "vocab_size", where);
  m.padId = config.contains("pad_token_id") && config["pad_token_id"].is_number_integer()
                ? config["pad_token_id"].get<int>()
                : 0;
  const HfBertLayout layout = hfBertLayoutOf(m.modelType, m.padId);
  m.model.maxPositions -= layout.positionOffset;
  if (m.model.maxPositions < 1)
    throw DataError(where, "max_position_embeddings leaves no position after pad_token_id + 1");
  return m;
}

namespace {

// A BertModel / RobertaModel saved alone names its tensors without the "bert." / "roberta."
// prefix and has no MLM head: the layout follows what the file holds.
HfBertLayout layoutOfFile(const PretrainedModel& m, const WeightFiles& weights, bool& hasHead) {
  HfBertLayout layout = hfBertLayoutOf(m.modelType, m.padId);
  const std::string words = "embeddings.word_embeddings.weight";
  if (weights.find(layout.encoder + words).second == nullptr &&
      weights.find(words).second != nullptr)
    layout.encoder.clear();
  hasHead = weights.find(layout.headDense + ".weight").second != nullptr;
  return layout;
}

}  // namespace

PretrainedModel loadHuggingFaceBert(const fs::path& folder) {
  PretrainedModel m = describeHuggingFaceBert(folder);
  const WeightFiles weights = openWeights(folder);
  if (m.modelType == "modernbert") {
    m.hasMlmHead = hasModernBertHead(weights);
    m.network = MaskedLanguageModel(m.model, m.vocabSize, m.padId,
                                    m.hasMlmHead ? ParameterInit::Replaced : ParameterInit::Random);
    loadModernBertWeights(m, weights);
    m.network->eval();
    return m;
  }
  const HfBertLayout layout = layoutOfFile(m, weights, m.hasMlmHead);
  m.network = MaskedLanguageModel(m.model, m.vocabSize, m.padId,
                                  m.hasMlmHead ? ParameterInit::Replaced : ParameterInit::Random);
  loadWeights(m, weights, layout);
  m.network->eval();
  return m;
}

}  // namespace attnlab::core
