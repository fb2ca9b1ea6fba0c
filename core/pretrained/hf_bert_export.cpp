#include "core/pretrained/hf_bert_export.h"

#include "core/pretrained/hf_bert_names.h"
#include "core/pretrained/hf_export_tensors.h"

#include <torch/torch.h>
#include <nlohmann/json.hpp>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

std::string asText(bool v) {
  return v ? "true" : "false";
}

}  // namespace

std::vector<std::string> hfBertRefusals(const RunConfig& c) {
  std::vector<std::string> out;
  addHfRefusal(out, c.model.norm != NormPlacement::Post, "model.norm", choiceText(c.model.norm),
               "BERT normalises after each sublayer (post), with no final LayerNorm");
  addHfRefusal(out, c.model.position != PositionEncoding::Learned, "model.position",
               choiceText(c.model.position),
               "BERT adds a learned position table to the embeddings");
  addHfRefusal(out, c.model.attentionWindow > 0, "model.attention_window",
               std::to_string(c.model.attentionWindow),
               "BERT's every layer attends to every token");
  addHfRefusal(out, c.model.feedForward != FeedForward::Gelu, "model.feed_forward",
               choiceText(c.model.feedForward), "BERT's feed-forward block is GELU(x W1) W2");
  addHfRefusal(out, !c.model.bias, "model.bias", asText(c.model.bias),
               "every BERT linear layer and LayerNorm has a bias");
  const auto mechanisms = hfMechanismRefusals(c.attention);
  out.insert(out.end(), mechanisms.begin(), mechanisms.end());
  return out;
}

std::map<std::string, at::Tensor> hfBertTensorsOf(
    const std::map<std::string, at::Tensor>& parameters, const ModelConfig& model,
    std::vector<std::string>& leftOut) {
  const HfBertLayout at = hfBertLayoutOf("bert", 0);
  std::map<std::string, at::Tensor> out;
  std::map<std::string, bool> mapped;
  for (const auto& [ours, names] : hfBertParameterSources(model.layers, at)) {
    const auto value = exportedParameter(parameters, ours);
    mapped[ours] = true;
    const auto parts = value.chunk(static_cast<int64_t>(names.size()), 0);
    for (size_t i = 0; i < names.size(); ++i) out[names[i]] = parts[i].contiguous();
  }
  const auto words = out.at(at.encoder + "embeddings.word_embeddings.weight");
  // Token type 0 is added to every token by BERT: a zero row keeps AttnLab's positions exact.
  out[hfTokenTypeTensor(at)] = torch::zeros({1, words.size(1)}, torch::kFloat);
  if (model.positionEmbeddings) {
    out[hfPositionTensor(at)] = exportedParameter(parameters, "position_embedding.weight");
    mapped["position_embedding.weight"] = true;
  } else {  // no positions: a zero table adds nothing, as AttnLab does
    out[hfPositionTensor(at)] = torch::zeros({model.maxPositions, words.size(1)}, torch::kFloat);
  }
  checkEveryParameterExported(parameters, mapped, leftOut, "BertForMaskedLM");
  return out;
}

void writeHfBertModel(const fs::path& folder, const std::map<std::string, at::Tensor>& bertTensors,
                      const ModelConfig& m, int vocabSize, int padId) {
  writeHfTensors(folder / "model.safetensors", bertTensors);
  ordered_json c = {{"architectures", {"BertForMaskedLM"}},
                    {"model_type", "bert"},
                    {"vocab_size", vocabSize},
                    {"hidden_size", m.hiddenSize},
                    {"num_hidden_layers", m.layers},
                    {"num_attention_heads", m.heads},
                    {"intermediate_size", m.ffnSize},
                    {"hidden_act", "gelu"},
                    {"hidden_dropout_prob", m.dropout},
                    {"attention_probs_dropout_prob", m.attentionDropout},
                    {"max_position_embeddings", m.maxPositions},
                    {"type_vocab_size", 1},
                    {"initializer_range", m.initStd},
                    {"layer_norm_eps", m.layerNormEps},
                    {"pad_token_id", padId},
                    {"position_embedding_type", "absolute"},
                    {"is_decoder", false},
                    {"add_cross_attention", false},
                    {"tie_word_embeddings", true},
                    {"dtype", "float32"}};
  writeHfText(folder / "config.json", c.dump(2) + "\n");
}

}  // namespace attnlab::core
