#pragma once

// The configuration end-to-end tests train: a 2-layer, 2-head encoder of hidden size 32 on
// the regular corpus (tiny_corpus.h) with a prepared tokenizer, 8 steps on one thread, CPU,
// checkpoints every 4 steps. Tests change what they exercise on the returned copy.

#include "core/config/run_config.h"

#include <filesystem>

namespace attnlab::tests {

inline core::RunConfig tinyRunConfig(const std::filesystem::path& corpus,
                                     const std::filesystem::path& tokenizerModel) {
  core::RunConfig c;
  c.run.name = "tiny";
  c.run.seed = 11;
  c.corpus.source = core::CorpusSource::Text;
  c.corpus.paths = {corpus.string()};
  c.tokenizer.model = tokenizerModel.string();
  c.data.sequenceLength = 24;
  c.data.validationFraction = 0.1;
  c.model.layers = 2;
  c.model.hiddenSize = 32;
  c.model.heads = 2;
  c.model.ffnSize = 64;
  c.model.maxPositions = 32;
  c.schedule.steps = 8;
  c.schedule.warmupSteps = 2;
  c.train.batchSize = 4;
  c.train.evalEvery = 4;
  c.train.evalBatches = 2;
  c.train.checkpointEvery = 4;
  c.train.logEvery = 1;
  c.train.threads = 1;
  c.train.device = {core::DeviceChoice::Cpu};
  c.log.flushSeconds = 0.2;
  return c;
}

}  // namespace attnlab::tests
