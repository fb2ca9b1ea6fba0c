#include "core/pretrained/hf_export_tensors.h"

#include "core/errors/error.h"
#include "core/pretrained/safetensors_writer.h"

#include <torch/torch.h>

#include <fstream>
#include <span>

namespace attnlab::core {

namespace fs = std::filesystem;

void addHfRefusal(std::vector<std::string>& out, bool on, const std::string& key,
                  const std::string& value, const char* why) {
  if (on) out.push_back(key + " = " + value + ": " + why);
}

namespace {

std::string asText(bool v) {
  return v ? "true" : "false";
}

}  // namespace

std::vector<std::string> hfMechanismRefusals(const AttentionConfig& a) {
  std::vector<std::string> out;
  addHfRefusal(out, a.position.mode != PositionMode::None, "attention.position.mode",
               choiceText(a.position.mode), "position interaction terms in the attention scores");
  addHfRefusal(out, a.temperature, "attention.temperature", asText(a.temperature),
               "learnable per-head temperatures scale the queries, keys and values");
  addHfRefusal(out, a.conv != ConvAttention::None, "attention.conv", choiceText(a.conv),
               "a convolution over the attention probabilities");
  addHfRefusal(out, a.residual != ResidualScores::None, "attention.residual",
               choiceText(a.residual), "RealFormer adds the previous layer's attention scores");
  addHfRefusal(out, a.outputGate != OutputGate::None, "attention.output_gate",
               choiceText(a.outputGate),
               "gated attention multiplies each head's output by a learned sigmoid gate");
  addHfRefusal(out, a.qkNorm != QkNorm::None, "attention.qk_norm", choiceText(a.qkNorm),
               "QK-norm normalises each head's queries and keys before the scores");
  addHfRefusal(out, a.normalizer != Normalizer::Softmax, "attention.normalizer",
               choiceText(a.normalizer),
               "the exported attention normalises each row with a softmax");
  addHfRefusal(out, a.differential, "attention.differential", asText(a.differential),
               "differential attention subtracts a second softmax map and normalises each head");
  addHfRefusal(out, a.blur.target != BlurTarget::None, "attention.blur.target",
               choiceText(a.blur.target), "SesameBERT's Gaussian blur of the context or values");
  addHfRefusal(out, a.squeeze.enabled, "attention.squeeze.enabled", asText(a.squeeze.enabled),
               "SesameBERT's squeeze-and-excitation weighs the layers' outputs");
  return out;
}

at::Tensor exportedParameter(const std::map<std::string, at::Tensor>& p, const std::string& name) {
  const auto it = p.find(name);
  if (it == p.end()) throw DataError(name, "parameter missing from the checkpoint");
  return it->second.to(torch::kFloat).contiguous();
}

void checkEveryParameterExported(const std::map<std::string, at::Tensor>& parameters,
                                 const std::map<std::string, bool>& mapped,
                                 std::vector<std::string>& leftOut,
                                 const std::string& architecture) {
  for (const auto& [name, tensor] : parameters) {
    if (mapped.count(name)) continue;
    if (name.rfind("adversaries.", 0) == 0) {
      leftOut.push_back(name);  // ASA's adversaries: training only
      continue;
    }
    throw DataError(name, "parameter has no counterpart in a " + architecture);
  }
}

void writeHfTensors(const fs::path& file, const std::map<std::string, at::Tensor>& tensors) {
  std::vector<SafetensorsTensorView> views;
  for (const auto& [name, t] : tensors) {
    const auto bytes = std::span<const std::byte>(static_cast<const std::byte*>(t.data_ptr()),
                                                  static_cast<size_t>(t.nbytes()));
    views.push_back({name, SafetensorsDtype::F32, t.sizes().vec(), bytes});
  }
  writeSafetensors(file, views);
}

void writeHfText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw DataError(file.string(), "cannot be written");
}

}  // namespace attnlab::core
