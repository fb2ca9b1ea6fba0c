#include "core/train/training_state.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/config/config_schema.h"
#include "core/errors/error.h"
#include "core/runtime/engine_random.h"
#include "core/train/adamw.h"
#include "core/train/loss_scaler.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdio>
#include <cstring>
#include <map>

namespace attnlab::core {

namespace {

constexpr const char* kModelPrefix = "model/";
constexpr const char* kCpuRngBlob = "rng/torch_cpu";
constexpr const char* kLossScaleKey = "train/loss_scale";

std::vector<std::uint8_t> cpuRngState() {
  auto gen = threadGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  const auto state = gen.get_state();
  const auto* bytes = state.data_ptr<std::uint8_t>();
  return std::vector<std::uint8_t>(bytes, bytes + state.numel());
}

void restoreCpuRngState(const std::vector<std::uint8_t>& bytes) {
  auto gen = threadGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  auto state = torch::empty({static_cast<int64_t>(bytes.size())}, torch::kUInt8);
  std::memcpy(state.data_ptr<std::uint8_t>(), bytes.data(), bytes.size());
  gen.set_state(state);
}

std::string shapeText(const at::Tensor& t) {
  return c10::str(t.sizes());
}

}  // namespace

TrainingState::TrainingState(std::vector<std::pair<std::string, at::Tensor>> parameters,
                             AdamW& optimizer, const RunConfig& config)
    : m_parameters(std::move(parameters)),
      m_optimizer(optimizer),
      m_config(config),
      m_configToml(toToml(config)) {}

std::int64_t TrainingState::restore(const CheckpointData& checkpoint, std::string& note) {
  // Which settings differ, so a shape mismatch can say why.
  std::string differing;
  try {
    const RunConfig saved =
        parseRunConfig(checkpoint.metadata.configToml, checkpoint.path.string());
    for (const auto& key : differingKeys(saved, m_config)) {
      differing += (differing.empty() ? "" : ", ") + key;
    }
  } catch (const ConfigError&) {
  }
  const std::string because = differing.empty() ? "" : " (settings that differ: " + differing + ")";
  torch::NoGradGuard noGrad;
  for (auto& [name, p] : m_parameters) {
    const auto it = checkpoint.tensors.find(kModelPrefix + name);
    if (it == checkpoint.tensors.end()) {
      throw CheckpointError(
          checkpoint.path.string(),
          "was written by a different model: it has no parameter '" + name + "'" + because);
    }
    if (it->second.sizes() != p.sizes()) {
      throw CheckpointError(checkpoint.path.string(),
                            "was written by a model of a different shape: " + name + " is " +
                                shapeText(it->second) + " in the checkpoint but " + shapeText(p) +
                                " in this configuration" + because +
                                "; use a new run directory or the original configuration");
    }
    p.copy_(it->second.to(p.device(), p.scalar_type()));
  }
  std::map<std::string, at::Tensor> optimizerState;
  const auto device =
      m_parameters.empty() ? c10::Device(c10::kCPU) : m_parameters.front().second.device();
  for (const auto& [key, t] : checkpoint.tensors) {
    if (key.rfind("optimizer/", 0) == 0) optimizerState[key] = t.to(device);
  }
  m_optimizer.loadState(optimizerState);
  const auto rng = checkpoint.metadata.blobs.find(kCpuRngBlob);
  if (rng == checkpoint.metadata.blobs.end()) {
    throw CheckpointError(checkpoint.path.string(), "has no CPU random-number state");
  }
  restoreCpuRngState(rng->second);
  const auto scale = checkpoint.tensors.find(kLossScaleKey);
  if (scale != checkpoint.tensors.end()) {
    if (scale->second.numel() != 2) {
      throw CheckpointError(checkpoint.path.string(), std::string(kLossScaleKey) + " has " +
                                                          std::to_string(scale->second.numel()) +
                                                          " values, expected 2");
    }
    m_restoredLossScale = scale->second.to(torch::kCPU, torch::kDouble);
    if (m_lossScaler != nullptr) attachLossScaler(*m_lossScaler);
  }
  note = differing.empty() ? "" : "settings changed since the checkpoint: " + differing;
  return checkpoint.step;
}

void TrainingState::attachLossScaler(LossScaler& scaler) {
  m_lossScaler = &scaler;
  if (!m_restoredLossScale.defined()) return;
  const auto values = m_restoredLossScale.accessor<double, 1>();
  scaler.restore(values[0], static_cast<int>(values[1]));
  m_restoredLossScale = at::Tensor();
}

std::filesystem::path TrainingState::save(
    CheckpointStore& store, std::int64_t step, std::optional<double> validationLoss,
    const std::filesystem::path& tokenizerModel, std::uint64_t tokenizerFingerprint,
    const std::function<void(const std::filesystem::path&)>& beforePublish) const {
  std::map<std::string, at::Tensor> tensors;
  for (const auto& [name, p] : m_parameters) tensors[kModelPrefix + name] = p.detach();
  for (const auto& [key, t] : m_optimizer.state()) tensors[key] = t;
  if (m_lossScaler != nullptr) {
    tensors[kLossScaleKey] = torch::tensor(
        {m_lossScaler->scale(), static_cast<double>(m_lossScaler->goodSteps())}, torch::kDouble);
  }
  CheckpointMetadata meta;
  meta.configToml = m_configToml;
  meta.attributes["run_name"] = m_config.run.name;
  meta.attributes["tokenizer_model"] = tokenizerModel.string();
  // What the embeddings' rows mean: a resume checks it (requireCheckpointTokenizer).
  meta.attributes[kTokenizerFingerprintAttribute] = fingerprintText(tokenizerFingerprint);
  meta.blobs[kCpuRngBlob] = cpuRngState();
  return store.save(step, validationLoss, tensors, meta, beforePublish);
}

std::string fingerprintText(std::uint64_t fingerprint) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fingerprint));
  return text;
}

void requireCheckpointTokenizer(const CheckpointData& checkpoint, std::uint64_t fingerprint) {
  const auto it = checkpoint.metadata.attributes.find(kTokenizerFingerprintAttribute);
  if (it == checkpoint.metadata.attributes.end()) return;  // written before it was recorded
  if (it->second == fingerprintText(fingerprint)) return;
  throw CheckpointError(
      checkpoint.path.string(),
      "was trained with another tokenizer (fingerprint " + it->second + ") than the run's " +
          "tokenizer.model now (" + fingerprintText(fingerprint) +
          "): it was replaced, or trained again after it was damaged; put the original back "
          "or start a new run directory");
}

}  // namespace attnlab::core
