#include "core/data/mlm_data.h"

#include "core/errors/error.h"

namespace attnlab::core {

namespace fs = std::filesystem;

MlmData prepareMlmData(const RunConfig& config, const fs::path& runDir, int threads) {
  return prepareMlmData(config, runDir, threads, {});
}

MlmData prepareMlmData(const RunConfig& config, const fs::path& runDir, int threads,
                       const DataPhaseCallback& onPhase) {
  int done = 0;
  auto phase = [&](const char* name) {
    if (onPhase && !onPhase(name, done, 4)) {
      throw Cancelled(std::string("data preparation (") + name + ")",
                      "stopped on request before this phase");
    }
    ++done;
  };
  // Cheap checks first, so a typo fails before minutes of tokenizer training.
  const Packing packing = config.data.packing;
  const MaskingOptions masking = MaskingOptions::fromConfig(config.data);

  const fs::path cache =
      config.data.cacheDir.empty() ? runDir / "cache" : fs::path(config.data.cacheDir);
  phase("corpus");
  CorpusBuild corpus = buildCorpus(config.corpus, cache);
  phase("tokenizer");
  ProvidedTokenizer tokenizer = config.model.initFrom.empty()
                                    ? provideTokenizer(config.tokenizer, corpus.textPath,
                                                       corpus.fingerprint, runDir, config.run.seed)
                                    : providePretrainedTokenizer(config.model.initFrom, runDir);
  phase("token store");
  TokenStore store =
      TokenStore::openOrBuild(cache / "tokens.bin", corpus.textPath, corpus.fingerprint,
                              *tokenizer.tokenizer, tokenizer.fingerprint, threads);
  phase("batches");
  DataSplit split = splitLines(store.lineCount(), config.data);

  const SpecialTokenIds specials = tokenizer.tokenizer->specialIds();
  auto trainBlocks = std::make_shared<const BlockSet>(
      store, split.trainLines, config.data.sequenceLength, packing, specials);
  MlmBatcher train(trainBlocks, config.train.batchSize, masking, config.run.seed,
                   BatchOrder::Shuffled);
  MlmBatcher validation;
  if (!split.validationLines.empty()) {
    auto validationBlocks = std::make_shared<const BlockSet>(
        store, split.validationLines, config.data.sequenceLength, packing, specials);
    validation = MlmBatcher(validationBlocks, config.train.batchSize, masking, config.run.seed,
                            BatchOrder::Sequential);
  }
  if (onPhase) onPhase("batches", 4, 4);
  return MlmData{std::move(corpus),
                 std::move(tokenizer),
                 std::move(store),
                 std::move(split),
                 std::move(train),
                 std::move(validation),
                 cache};
}

}  // namespace attnlab::core
