#include "core/pretrained/hf_bert_import.h"

#include "core/errors/error.h"
#include "core/pretrained/hf_bert_names.h"
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

json readConfig(const fs::path& folder) {
  const fs::path file = folder / "config.json";
  std::ifstream in(file);
  if (!in) throw DataError(file.string(), "missing: not a Hugging Face model folder");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(file.string(), std::string("not JSON: ") + e.what());
  }
}

int intField(const json& c, const char* key, const std::string& where) {
  if (!c.contains(key) || !c[key].is_number_integer() || c[key].get<long long>() < 0)
    throw DataError(where, std::string(key) + ": missing or not a non-negative integer");
  return c[key].get<int>();
}

/// A number field, `fallback` when absent; DataError naming it when it is not a number.
double realField(const json& c, const char* key, double fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_number()) throw DataError(where, std::string(key) + ": not a number");
  return c[key].get<double>();
}

/// The fields that change the computation: honoured, or refused by name.
void checkSupported(const json& c, const std::string& where) {
  const auto text = [&](const char* key, const char* fallback) {
    return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : fallback;
  };
  const auto type = text("model_type", "");
  if (type != "bert" && type != "roberta" && type != "xlm-roberta")
    throw DataError(where, "model_type \"" + type + "\": bert, roberta and xlm-roberta are read");
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

/// The checkpoint's tensors: model.safetensors, or the shards model.safetensors.index.json
/// names (large checkpoints come so), each mapped.
struct WeightFiles {
  std::vector<SafetensorsFile> files;
  std::string where;  ///< named when a tensor is missing

  std::pair<const SafetensorsFile*, const SafetensorsEntry*> find(const std::string& name) const {
    for (const auto& f : files)
      if (const auto* e = f.find(name)) return {&f, e};
    return {nullptr, nullptr};
  }
};

[[noreturn]] void missingWeights(const fs::path& folder) {
  const fs::path weights = folder / "model.safetensors";
  const bool pickle = fs::exists(folder / "pytorch_model.bin");
  throw DataError(weights.string(),
                  pickle ? "missing; pytorch_model.bin (a pickle) is not read: convert it with "
                           "`python -c \"from transformers import AutoModelForMaskedLM as M; "
                           "M.from_pretrained('DIR').save_pretrained('DIR', "
                           "safe_serialization=True)\"`"
                         : "missing (nor model.safetensors.index.json): not a Hugging Face model "
                           "folder");
}

/// The shards an index names: plain file names in `folder`, each tensor in the shard it says.
WeightFiles openShards(const fs::path& folder, const fs::path& index) {
  const std::string where = index.string();
  json doc;
  try {
    std::ifstream in(index);
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(where, std::string("not JSON: ") + e.what());
  }
  if (!doc.contains("weight_map") || !doc["weight_map"].is_object())
    throw DataError(where, "weight_map: missing or not an object");
  std::map<std::string, std::vector<std::string>> byShard;
  for (const auto& [tensor, shard] : doc["weight_map"].items()) {
    const std::string name = shard.is_string() ? shard.get<std::string>() : "";
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      throw DataError(where, "weight_map \"" + tensor + "\": " + shard.dump() +
                                 " is not a file name in the model's folder");
    byShard[name].push_back(tensor);
  }
  WeightFiles w{{}, where};
  for (const auto& [shard, tensors] : byShard) {
    w.files.emplace_back(folder / shard);
    for (const auto& t : tensors)
      if (w.files.back().find(t) == nullptr)
        throw DataError((folder / shard).string(), "tensor \"" + t + "\" missing, though " +
                                                       index.filename().string() +
                                                       " places it here");
  }
  return w;
}

WeightFiles openWeights(const fs::path& folder) {
  const fs::path single = folder / "model.safetensors";
  if (fs::exists(single)) {
    WeightFiles w{{}, single.string()};
    w.files.emplace_back(single);
    return w;
  }
  const fs::path index = folder / "model.safetensors.index.json";
  if (fs::exists(index)) return openShards(folder, index);
  missingWeights(folder);
}

/// One checkpoint tensor as float32: F32 read in place from the mapping (valid while
/// `weights` lives; only read, then copied once into its parameter), F16, BF16 and F64
/// converted into a new tensor.
torch::Tensor tensorOf(const WeightFiles& weights, const std::string& name) {
  const auto [file, e] = weights.find(name);
  if (e == nullptr) throw DataError(weights.where, "tensor \"" + name + "\" missing");
  const auto type = e->dtype == SafetensorsDtype::F32    ? torch::kFloat
                    : e->dtype == SafetensorsDtype::F16  ? torch::kHalf
                    : e->dtype == SafetensorsDtype::BF16 ? torch::kBFloat16
                    : e->dtype == SafetensorsDtype::F64  ? torch::kDouble
                                                         : torch::kLong;
  const auto bytes = file->bytes(*e);
  // from_blob takes a non-const pointer; the mapping is read-only and nothing writes here.
  void* data = const_cast<std::byte*>(bytes.data());
  const auto mapped = torch::from_blob(data, e->shape, torch::dtype(type));
  return mapped.to(torch::kFloat);
}

void assign(torch::Tensor& parameter, const torch::Tensor& value, const std::string& name,
            const std::string& where) {
  if (parameter.sizes() != value.sizes())
    throw DataError(where, "tensor for " + name + " has shape " + c10::str(value.sizes()) +
                               ", the model's config.json implies " + c10::str(parameter.sizes()));
  parameter.copy_(value);
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
  const json config = readConfig(folder);
  const std::string where = (folder / "config.json").string();
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
  const HfBertLayout layout = layoutOfFile(m, weights, m.hasMlmHead);
  m.network = MaskedLanguageModel(m.model, m.vocabSize, m.padId,
                                  m.hasMlmHead ? ParameterInit::Replaced : ParameterInit::Random);
  loadWeights(m, weights, layout);
  m.network->eval();
  return m;
}

}  // namespace attnlab::core
