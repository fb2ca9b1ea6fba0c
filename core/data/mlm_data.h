#pragma once

#include "core/config/run_config.h"
#include "core/data/blocks.h"
#include "core/data/corpus_source.h"
#include "core/data/mlm_batcher.h"
#include "core/data/sharded_token_store.h"
#include "core/data/tokenizer_provider.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace attnlab::core {

/// Everything the MLM trainer needs from the data side, built by prepareMlmData.
struct MlmData {
  CorpusBuild corpus;
  ProvidedTokenizer tokenizer;
  ShardedTokenStore store;  ///< its train() and validation() parts feed the two batchers
  MlmBatcher train;         ///< Shuffled, seeded by run.seed
  MlmBatcher validation;    ///< Sequential; empty (blocksPerEpoch() == 0) without validation
  std::filesystem::path cacheDir;
};

/// Where preparation is, for progress lines: phase `phaseIndex` of `phases` ("corpus",
/// "tokenizer", "token store", "batches"), and within it `done` of `total` bytes of text
/// (0 of 0 when the phase cannot tell, as SentencePiece's training cannot).
struct DataProgress {
  std::string phase;
  int phaseIndex = 0;
  int phases = 4;
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  double phaseSeconds = 0.0;  ///< since the phase began
};

/// Called on the preparing thread at each phase's start and end and a few times a second
/// within it; false cancels: prepareMlmData then throws attnlab::Cancelled (each phase's
/// files are complete or absent, and a token store keeps its finished shards).
using DataProgressCallback = std::function<bool(const DataProgress&)>;

/// The data pipeline end to end, reusing what is still valid:
///   corpus    -> <cache>/corpus.txt          (always rebuilt; fingerprinted)
///   tokenizer -> <runDir>/tokenizer.model    (trained, or reused when corpus and settings
///                                             match; or the configured model, copied)
///   store     -> <cache>/tokens/             (sharded; reused when corpus, tokenizer and
///                                             split match; core/data/sharded_token_store.h)
///   the two batchers over its train and validation parts (train.batch_size, run.seed, data.*)
/// <cache> is data.cache_dir, or <runDir>/cache when that is empty. `threads` encodes the
/// store (0 = cores). Throws ConfigError / DataError / TokenizerError.
MlmData prepareMlmData(const RunConfig& config, const std::filesystem::path& runDir,
                       int threads = 0, const DataProgressCallback& onProgress = {});

/// The data another process prepared with prepareMlmData (the local rank 0 of a multi-process
/// run): the run's tokenizer and the finished store in the cache, opened without a corpus
/// pass. Throws DataError when either is missing or they do not belong together.
MlmData openPreparedMlmData(const RunConfig& config, const std::filesystem::path& runDir);

/// <cache> for `config` and `runDir`.
std::filesystem::path dataCacheDir(const RunConfig& config, const std::filesystem::path& runDir);

}  // namespace attnlab::core
