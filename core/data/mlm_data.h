#pragma once

#include "core/config/run_config.h"
#include "core/data/blocks.h"
#include "core/data/corpus_source.h"
#include "core/data/mlm_batcher.h"
#include "core/data/token_store.h"
#include "core/data/tokenizer_provider.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace attnlab::core {

/// Everything the MLM trainer needs from the data side, built by prepareMlmData.
struct MlmData {
  CorpusBuild corpus;
  ProvidedTokenizer tokenizer;
  TokenStore store;
  DataSplit split;
  MlmBatcher train;       ///< Shuffled, seeded by run.seed
  MlmBatcher validation;  ///< Sequential; empty (blocksPerEpoch() == 0) without validation
  std::filesystem::path cacheDir;
};

/// The data pipeline end to end, reusing what is still valid:
///   corpus    -> <cache>/corpus.txt          (always rebuilt; fingerprinted)
///   tokenizer -> <runDir>/tokenizer.model    (trained, or reused when corpus and settings
///                                             match; or the configured model, copied)
///   store     -> <cache>/tokens.bin          (reused when both fingerprints match)
///   split, blocks and the two batchers       (train.batch_size, run.seed, data.*)
/// <cache> is data.cache_dir, or <runDir>/cache when that is empty. `threads` encodes the
/// store (0 = cores). Throws ConfigError / DataError / TokenizerError.
MlmData prepareMlmData(const RunConfig& config, const std::filesystem::path& runDir,
                       int threads = 0);

/// Told before each phase ("corpus", "tokenizer", "token store", "batches") and once done:
/// (phase, done, total) with total = 4 phases; returns false to cancel, which makes
/// prepareMlmData throw attnlab::Cancelled between phases (each phase's own files are
/// complete or absent: every one is written under a temporary name first).
using DataPhaseCallback = std::function<bool(const std::string& phase, int done, int total)>;
MlmData prepareMlmData(const RunConfig& config, const std::filesystem::path& runDir, int threads,
                       const DataPhaseCallback& onPhase);

}  // namespace attnlab::core
