#pragma once

// A checkpoint of a configuration's model as built, without training: tests of what the
// inspector reads from a model (hook points, mechanisms' parameters) need a checkpoint, not a
// trained one, and training even the tiny model costs seconds per test on a busy machine.
// The parameters are drawn again from a seeded normal distribution, so that those that start
// at 0 (sink logits, gate biases) hold values a wrong read would miss, and the scores are
// large enough that attention maps have structure (peaked rows, negative differential
// cells).

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/config/run_config.h"
#include "core/model/masked_lm.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace attnlab::tests {

/// Writes <runDir>/config.toml, <runDir>/tokenizer.model (the config's tokenizer.model) and
/// <runDir>/checkpoints/step-<step>.h5 of `config`'s model, its parameters N(0, spread)
/// (seeded); returns the checkpoint's path.
inline std::filesystem::path saveUntrainedCheckpoint(const core::RunConfig& config,
                                                     const std::filesystem::path& runDir,
                                                     std::int64_t step = 4, double spread = 0.3,
                                                     std::uint64_t seed = 7) {
  namespace fs = std::filesystem;
  fs::create_directories(runDir);
  fs::copy_file(config.tokenizer.model, runDir / "tokenizer.model",
                fs::copy_options::overwrite_existing);
  const auto tokenizer = core::SentencePieceTokenizer::load(runDir / "tokenizer.model");
  core::MaskedLanguageModel model(config.model, config.attention, config.data.sequenceLength,
                                  tokenizer.vocabSize(), tokenizer.specialIds().pad);
  torch::NoGradGuard noGrad;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  std::map<std::string, at::Tensor> tensors;
  for (auto& p : model->named_parameters()) {
    p.value().normal_(0.0, spread, generator);
    tensors["model/" + p.key()] = p.value().clone();
  }
  const std::string toml = core::toToml(config);
  std::ofstream(runDir / "config.toml") << toml;
  core::CheckpointMetadata metadata;
  metadata.configToml = toml;
  return core::CheckpointStore(runDir, 10, false).save(step, std::nullopt, tensors, metadata);
}

}  // namespace attnlab::tests
