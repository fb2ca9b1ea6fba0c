#include "core/pretrained/hf_modernbert_import.h"

#include "core/config/modernbert_layout.h"
#include "core/errors/error.h"

#include <torch/torch.h>

#include <set>
#include <utility>
#include <vector>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string textField(const json& c, const char* key, const char* fallback) {
  return c.contains(key) && c[key].is_string() ? c[key].get<std::string>() : fallback;
}

bool boolField(const json& c, const char* key, bool fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_boolean()) throw DataError(where, std::string(key) + ": not true or false");
  return c[key].get<bool>();
}

/// The RoPE base of "full_attention" or "sliding_attention": rope_parameters (transformers 5),
/// else the older global_rope_theta / local_rope_theta, else ModernBERT's defaults.
double ropeTheta(const json& c, const char* layerType, const char* oldKey, double fallback,
                 const std::string& where) {
  if (c.contains("rope_parameters") && c["rope_parameters"].is_object() &&
      c["rope_parameters"].contains(layerType)) {
    const json& p = c["rope_parameters"][layerType];
    const std::string type = textField(p, "rope_type", "default");
    if (type != "default")
      throw DataError(where, std::string("rope_parameters.") + layerType + ".rope_type \"" + type +
                                 "\": only the default rotary embedding is computed");
    return realField(p, "rope_theta", fallback, where);
  }
  return realField(c, oldKey, fallback, where);
}

/// N such that layer L is global exactly when L % N == 0, from layer_types or
/// global_attn_every_n_layers.
int globalEvery(const json& c, int layers, const std::string& where) {
  if (!c.contains("layer_types") || !c["layer_types"].is_array())
    return c.contains("global_attn_every_n_layers")
               ? intField(c, "global_attn_every_n_layers", where)
               : 3;
  const json& types = c["layer_types"];
  if (static_cast<int>(types.size()) != layers)
    throw DataError(where, "layer_types: " + std::to_string(types.size()) + " entries for " +
                               std::to_string(layers) + " layers");
  std::vector<bool> global;
  for (const auto& t : types) {
    const std::string name = t.is_string() ? t.get<std::string>() : "";
    if (name != "full_attention" && name != "sliding_attention")
      throw DataError(where, "layer_types: " + t.dump() +
                                 " is neither full_attention nor "
                                 "sliding_attention");
    global.push_back(name == "full_attention");
  }
  for (int n = 1; n <= layers; ++n) {
    bool fits = true;
    for (int l = 0; l < layers && fits; ++l) fits = global[static_cast<size_t>(l)] == (l % n == 0);
    if (fits) return n;
  }
  throw DataError(where,
                  "layer_types: the engine makes layer L global when L % N == 0 for one N; "
                  "this pattern is not one");
}

/// norm_bias, attention_bias, mlp_bias and classifier_bias: all on or all off.
bool biases(const json& c, const std::string& where) {
  const bool norm = boolField(c, "norm_bias", false, where);
  for (const char* key : {"attention_bias", "mlp_bias", "classifier_bias"})
    if (boolField(c, key, false, where) != norm)
      throw DataError(where, std::string(key) +
                                 " differs from norm_bias: the engine has one "
                                 "bias setting for every linear layer and norm");
  return norm;
}

void checkActivations(const json& c, const std::string& where) {
  for (const char* key : {"hidden_activation", "classifier_activation"}) {
    const std::string act = textField(c, key, "gelu");
    if (act != "gelu")
      throw DataError(where, std::string(key) + " \"" + act +
                                 "\": AttnLab's encoder uses the exact (erf) GELU only");
  }
}

}  // namespace

PretrainedModel describeModernBert(const json& c, const fs::path& folder) {
  const std::string where = (folder / "config.json").string();
  checkActivations(c, where);
  PretrainedModel p;
  p.folder = folder;
  p.modelType = "modernbert";
  ModelConfig& m = p.model;
  m.layers = intField(c, "num_hidden_layers", where);
  m.hiddenSize = intField(c, "hidden_size", where);
  m.heads = intField(c, "num_attention_heads", where);
  m.ffnSize = intField(c, "intermediate_size", where);
  m.maxPositions = intField(c, "max_position_embeddings", where);
  if (m.heads == 0 || m.hiddenSize % m.heads != 0 || (m.hiddenSize / m.heads) % 2 != 0)
    throw DataError(where, "num_attention_heads " + std::to_string(m.heads) +
                               " does not split hidden_size " + std::to_string(m.hiddenSize) +
                               " into heads of an even size (RoPE turns pairs)");
  m.layerNormEps = realField(c, "norm_eps", 1e-5, where);
  m.dropout = realField(c, "mlp_dropout", 0.0, where);
  m.attentionDropout = realField(c, "attention_dropout", 0.0, where);
  useModernBertLayout(m);
  m.ropeTheta = ropeTheta(c, "full_attention", "global_rope_theta", 160000.0, where);
  m.ropeThetaLocal = ropeTheta(c, "sliding_attention", "local_rope_theta", 10000.0, where);
  m.attentionWindow = c.contains("local_attention") ? intField(c, "local_attention", where) : 128;
  m.globalEvery = globalEvery(c, m.layers, where);
  m.bias = biases(c, where);
  p.vocabSize = intField(c, "vocab_size", where);
  p.padId = c.contains("pad_token_id") && c["pad_token_id"].is_number_integer()
                ? c["pad_token_id"].get<int>()
                : 0;
  return p;
}

std::vector<std::pair<std::string, std::string>> modernBertTensorNames(const ModelConfig& m,
                                                                       const std::string& prefix,
                                                                       bool withHead) {
  std::vector<std::string> kinds = {"weight"};
  if (m.bias) kinds.push_back("bias");
  std::vector<std::pair<std::string, std::string>> names = {
      {"token_embedding.weight", prefix + "embeddings.tok_embeddings.weight"}};
  for (const auto& k : kinds) {
    names.push_back({"embedding_norm." + k, prefix + "embeddings.norm." + k});
    names.push_back({"final_norm." + k, prefix + "final_norm." + k});
    for (int l = 0; l < m.layers; ++l) {
      const std::string ours = "layers." + std::to_string(l) + ".";
      const std::string theirs = prefix + "layers." + std::to_string(l) + ".";
      if (l > 0) names.push_back({ours + "attention_norm." + k, theirs + "attn_norm." + k});
      names.push_back({ours + "attention.qkv." + k, theirs + "attn.Wqkv." + k});
      names.push_back({ours + "attention.output." + k, theirs + "attn.Wo." + k});
      names.push_back({ours + "ffn_norm." + k, theirs + "mlp_norm." + k});
      names.push_back({ours + "ffn_in." + k, theirs + "mlp.Wi." + k});
      names.push_back({ours + "ffn_out." + k, theirs + "mlp.Wo." + k});
    }
    if (withHead) {
      names.push_back({"mlm_transform." + k, "head.dense." + k});
      names.push_back({"mlm_norm." + k, "head.norm." + k});
    }
  }
  return names;
}

bool hasModernBertHead(const WeightFiles& weights) {
  return weights.find("head.dense.weight").second != nullptr;
}

void loadModernBertWeights(PretrainedModel& m, const WeightFiles& weights) {
  torch::NoGradGuard noGrad;
  const std::string& where = weights.where;
  const std::string prefix =
      weights.find("model.embeddings.tok_embeddings.weight").second != nullptr ? "model." : "";
  const auto names = modernBertTensorNames(m.model, prefix, m.hasMlmHead);
  auto params = m.network->named_parameters();
  std::set<std::string> used;
  for (const auto& [ours, theirs] : names) {
    assign(params[ours], tensorOf(weights, theirs), ours, where);
    used.insert(theirs);
  }
  // decoder_bias = false leaves AttnLab's decoder bias at 0, which is the same computation.
  if (m.hasMlmHead && weights.find("decoder.bias").second != nullptr) {
    assign(params["mlm_bias"], tensorOf(weights, "decoder.bias"), "mlm_bias", where);
    used.insert("decoder.bias");
  }
  used.insert("decoder.weight");  // tied to the token embeddings, as in AttnLab
  for (const auto& f : weights.files)
    for (const auto& e : f.entries())
      if (!used.count(e.name)) m.unused.push_back(e.name);
}

}  // namespace attnlab::core
