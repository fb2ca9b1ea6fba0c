#include "core/data/mlm_data.h"

namespace attnlab::core {

namespace fs = std::filesystem;

MlmData prepareMlmData(const RunConfig& config, const fs::path& runDir, int threads) {
  // Cheap checks first, so a typo fails before minutes of tokenizer training.
  const Packing packing = parsePacking(config.data.packing);
  const MaskingOptions masking = MaskingOptions::fromConfig(config.data);

  const fs::path cache =
      config.data.cacheDir.empty() ? runDir / "cache" : fs::path(config.data.cacheDir);
  CorpusBuild corpus = buildCorpus(config.corpus, cache);
  ProvidedTokenizer tokenizer = provideTokenizer(config.tokenizer, corpus.textPath,
                                                 corpus.fingerprint, runDir, config.run.seed);
  TokenStore store =
      TokenStore::openOrBuild(cache / "tokens.bin", corpus.textPath, corpus.fingerprint,
                              tokenizer.tokenizer, tokenizer.fingerprint, threads);
  DataSplit split = splitLines(store.lineCount(), config.data);

  const SpecialTokenIds specials = tokenizer.tokenizer.specialIds();
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
  return MlmData{std::move(corpus),
                 std::move(tokenizer),
                 std::move(store),
                 std::move(split),
                 std::move(train),
                 std::move(validation),
                 cache};
}

}  // namespace attnlab::core
