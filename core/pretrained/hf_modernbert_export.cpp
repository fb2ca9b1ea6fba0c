#include "core/pretrained/hf_modernbert_export.h"

#include "core/config/attention_span.h"
#include "core/pretrained/hf_export_tensors.h"
#include "core/pretrained/hf_modernbert_import.h"

#include <torch/torch.h>
#include <nlohmann/json.hpp>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

/// ModernBERT's layer types: "sliding_attention" where AttnLab's layer is windowed.
ordered_json layerTypes(const ModelConfig& m) {
  ordered_json types = ordered_json::array();
  for (int l = 0; l < m.layers; ++l)
    types.push_back(isWindowedLayer(m, l) ? "sliding_attention" : "full_attention");
  return types;
}

ordered_json ropeParameters(const ModelConfig& m) {
  return {{"full_attention", {{"rope_theta", m.ropeTheta}, {"rope_type", "default"}}},
          {"sliding_attention", {{"rope_theta", m.ropeThetaLocal}, {"rope_type", "default"}}}};
}

}  // namespace

std::vector<std::string> hfModernBertRefusals(const RunConfig& c) {
  std::vector<std::string> out;
  const ModelConfig& m = c.model;
  addHfRefusal(out, m.norm != NormPlacement::Pre, "model.norm", choiceText(m.norm),
               "ModernBERT normalises before each sublayer (pre), with a final norm");
  addHfRefusal(out, m.norm == NormPlacement::Pre && m.firstAttentionNorm,
               "model.first_attention_norm", "true",
               "ModernBERT's layer 0 attends to the normalised embeddings with no norm of its own");
  addHfRefusal(out, m.position != PositionEncoding::Rope, "model.position", choiceText(m.position),
               "ModernBERT rotates queries and keys (rope) and has no position table");
  addHfRefusal(out, m.feedForward != FeedForward::Geglu, "model.feed_forward",
               choiceText(m.feedForward), "ModernBERT's feed-forward block is GeGLU");
  const auto mechanisms = hfMechanismRefusals(c.attention);
  out.insert(out.end(), mechanisms.begin(), mechanisms.end());
  return out;
}

std::map<std::string, at::Tensor> hfModernBertTensorsOf(
    const std::map<std::string, at::Tensor>& parameters, const ModelConfig& model,
    std::vector<std::string>& leftOut) {
  std::map<std::string, at::Tensor> out;
  std::map<std::string, bool> mapped;
  auto names = modernBertTensorNames(model, "model.", true);
  // AttnLab's MLM decoder always has its bias: ModernBERT's decoder_bias = true. Its weight is
  // the token embeddings (tie_word_embeddings), which transformers does not store twice.
  names.push_back({"mlm_bias", "decoder.bias"});
  for (const auto& [ours, theirs] : names) {
    out[theirs] = exportedParameter(parameters, ours);
    mapped[ours] = true;
  }
  checkEveryParameterExported(parameters, mapped, leftOut, "ModernBertForMaskedLM");
  return out;
}

void writeHfModernBertModel(const fs::path& folder,
                            const std::map<std::string, at::Tensor>& tensors, const ModelConfig& m,
                            int vocabSize, const SpecialTokenIds& special) {
  writeHfTensors(folder / "model.safetensors", tensors);
  const int globalEvery = m.attentionWindow > 0 ? m.globalEvery : 1;
  ordered_json c = {{"architectures", {"ModernBertForMaskedLM"}},
                    {"model_type", "modernbert"},
                    {"vocab_size", vocabSize},
                    {"hidden_size", m.hiddenSize},
                    {"intermediate_size", m.ffnSize},
                    {"num_hidden_layers", m.layers},
                    {"num_attention_heads", m.heads},
                    {"max_position_embeddings", m.maxPositions},
                    {"hidden_activation", "gelu"},
                    {"classifier_activation", "gelu"},
                    {"norm_eps", m.layerNormEps},
                    {"norm_bias", m.bias},
                    {"attention_bias", m.bias},
                    {"mlp_bias", m.bias},
                    {"classifier_bias", m.bias},
                    {"decoder_bias", true},
                    {"embedding_dropout", m.dropout},
                    {"mlp_dropout", m.dropout},
                    {"attention_dropout", m.attentionDropout},
                    {"classifier_dropout", 0.0},
                    // Unused when every layer is global; kept at ModernBERT's default then.
                    {"local_attention", m.attentionWindow > 0 ? m.attentionWindow : 128},
                    {"layer_types", layerTypes(m)},
                    {"global_attn_every_n_layers", globalEvery},
                    {"rope_parameters", ropeParameters(m)},
                    {"global_rope_theta", m.ropeTheta},
                    {"local_rope_theta", m.ropeThetaLocal},
                    {"pad_token_id", special.pad},
                    {"bos_token_id", special.bos},
                    {"eos_token_id", special.eos},
                    {"cls_token_id", special.bos},
                    {"sep_token_id", special.eos},
                    {"initializer_range", m.initStd},
                    {"initializer_cutoff_factor", 2.0},
                    {"classifier_pooling", "cls"},
                    {"sparse_prediction", false},
                    {"sparse_pred_ignore_index", -100},
                    {"deterministic_flash_attn", false},
                    {"tie_word_embeddings", true},
                    {"dtype", "float32"}};
  writeHfText(folder / "config.json", c.dump(2) + "\n");
}

}  // namespace attnlab::core
