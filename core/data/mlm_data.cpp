#include "core/data/mlm_data.h"

#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

constexpr int kPhases = 4;

/// Reports phases in turn and measures each; throws Cancelled when the callback says stop.
class PhaseReporter {
 public:
  explicit PhaseReporter(const DataProgressCallback& callback) : m_callback(callback) {}

  void begin(const char* phase) {
    ++m_index;
    m_phase = phase;
    m_start = std::chrono::steady_clock::now();
    report(0, 0);
  }

  /// Progress within the phase; false when a stop was asked for.
  bool report(std::uint64_t done, std::uint64_t total) {
    if (!m_callback) return true;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    if (m_callback(DataProgress{m_phase, m_index, kPhases, done, total, seconds})) return true;
    m_stopped = true;
    return false;
  }

  void throwIfStopped() const {
    if (m_stopped) {
      throw Cancelled("data preparation (" + m_phase + ")", "stopped on request");
    }
  }

  void finish() {
    if (m_callback) m_callback(DataProgress{"batches", kPhases, kPhases, 0, 0, 0.0});
  }

 private:
  const DataProgressCallback& m_callback;
  int m_index = -1;
  std::string m_phase;
  std::chrono::steady_clock::time_point m_start;
  bool m_stopped = false;
};

TokenStoreKey storeKey(const RunConfig& config, std::uint64_t corpusFingerprint,
                       std::uint64_t tokenizerFingerprint) {
  const auto chunkBytes = static_cast<std::uint64_t>(std::llround(config.data.shardMb * 1048576.0));
  return TokenStoreKey{corpusFingerprint, tokenizerFingerprint, config.data.validationLines,
                       config.data.validationFraction, std::max<std::uint64_t>(chunkBytes, 1)};
}

/// The two batchers over the store's parts.
MlmData assemble(const RunConfig& config, CorpusBuild corpus, ProvidedTokenizer tokenizer,
                 ShardedTokenStore store, fs::path cache) {
  const MaskingOptions masking = MaskingOptions::fromConfig(config.data);
  const SpecialTokenIds specials = tokenizer.tokenizer->specialIds();
  const int length = config.data.sequenceLength;
  auto trainBlocks =
      std::make_shared<const BlockSet>(store.train(), length, config.data.packing, specials);
  MlmBatcher train(trainBlocks, config.train.batchSize, masking, config.run.seed,
                   BatchOrder::Shuffled);
  MlmBatcher validation;
  if (store.validation().lineCount() > 0) {
    auto validationBlocks =
        std::make_shared<const BlockSet>(store.validation(), length, config.data.packing, specials);
    validation = MlmBatcher(validationBlocks, config.train.batchSize, masking, config.run.seed,
                            BatchOrder::Sequential);
  }
  return MlmData{std::move(corpus), std::move(tokenizer),  std::move(store),
                 std::move(train),  std::move(validation), std::move(cache)};
}

}  // namespace

fs::path dataCacheDir(const RunConfig& config, const fs::path& runDir) {
  return config.data.cacheDir.empty() ? runDir / "cache" : fs::path(config.data.cacheDir);
}

MlmData prepareMlmData(const RunConfig& config, const fs::path& runDir, int threads,
                       const DataProgressCallback& onProgress) {
  // Cheap checks first, so a typo fails before minutes of tokenizer training.
  (void)MaskingOptions::fromConfig(config.data);
  PhaseReporter phases(onProgress);
  const fs::path cache = dataCacheDir(config, runDir);

  phases.begin("corpus");
  phases.throwIfStopped();
  CorpusBuild corpus = buildCorpus(
      config.corpus, cache,
      [&](std::uint64_t done, std::uint64_t total) { return phases.report(done, total); });
  // The split's settings are checked against the real line count before any training.
  (void)ValidationRule(static_cast<std::int64_t>(corpus.stats.linesKept), config.data);

  phases.begin("tokenizer");
  phases.throwIfStopped();
  ProvidedTokenizer tokenizer =
      config.model.initFrom.empty()
          ? provideTokenizer(config.tokenizer, corpus.textPath, corpus.fingerprint, runDir,
                             config.run.seed, static_cast<std::int64_t>(corpus.stats.linesKept),
                             corpus.stats.bytes)
          : providePretrainedTokenizer(config.model.initFrom, runDir);

  phases.begin("token store");
  phases.throwIfStopped();
  ShardBuildOptions options;
  options.threads = threads;
  options.progress = [&](std::uint64_t done, std::uint64_t total) {
    return phases.report(done, total);
  };
  ShardedTokenStore store = ShardedTokenStore::openOrBuild(
      cache / "tokens", corpus.textPath,
      storeKey(config, corpus.fingerprint, tokenizer.fingerprint), *tokenizer.tokenizer, options);

  phases.begin("batches");
  phases.throwIfStopped();
  MlmData data = assemble(config, std::move(corpus), std::move(tokenizer), std::move(store), cache);
  phases.finish();
  return data;
}

MlmData openPreparedMlmData(const RunConfig& config, const fs::path& runDir) {
  const fs::path cache = dataCacheDir(config, runDir);
  const auto recorded = ShardedTokenStore::recordedKey(cache / "tokens");
  if (!recorded) {
    throw DataError((cache / "tokens").string(),
                    "no finished token store (the preparing process failed or was stopped)");
  }
  ProvidedTokenizer tokenizer;
  if (config.model.initFrom.empty()) {
    const fs::path model = runDir / "tokenizer.model";
    tokenizer = ProvidedTokenizer{
        std::make_shared<const SentencePieceTokenizer>(SentencePieceTokenizer::load(model)), model,
        fingerprintFile(model), false, TokenizerOrigin::Reused};
  } else {
    tokenizer = providePretrainedTokenizer(runDir / "tokenizer", runDir);
  }
  const TokenStoreKey key = storeKey(config, recorded->corpusFingerprint, tokenizer.fingerprint);
  std::string why;
  auto store = ShardedTokenStore::tryOpen(cache / "tokens", key, &why);
  if (!store) throw DataError((cache / "tokens").string(), "cannot be opened: " + why);
  CorpusBuild corpus;
  corpus.textPath = cache / "corpus.txt";
  corpus.fingerprint = recorded->corpusFingerprint;
  return assemble(config, std::move(corpus), std::move(tokenizer), std::move(*store), cache);
}

}  // namespace attnlab::core
