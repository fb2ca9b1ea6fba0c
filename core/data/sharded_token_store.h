#pragma once

// The corpus encoded once, as shards of bounded size with an index (docs/data.md):
//
//   <folder>/index.json             what the store was built from, and every shard's counts
//   <folder>/train-00000.bin        the training lines of corpus chunk 0 (a TokenStore file)
//   <folder>/validation-00000.bin   its validation lines (data.validation_*)
//   ...
//
// Chunks are encoded in parallel, each into its own two files (written under a temporary
// name, then renamed), so the files do not depend on the thread count, a build that was
// killed keeps every finished shard, and a restart encodes only the missing ones. The index
// is written last: a store without one is unfinished.

#include "core/config/run_config.h"
#include "core/data/corpus_chunks.h"
#include "core/data/token_sequence.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace attnlab::core {

class Tokenizer;

/// What a store must have been built from to be reused.
struct TokenStoreKey {
  std::uint64_t corpusFingerprint = 0;            ///< CorpusBuild::fingerprint
  std::uint64_t tokenizerFingerprint = 0;         ///< ProvidedTokenizer::fingerprint
  std::int64_t validationLines = 0;               ///< data.validation_lines
  double validationFraction = 0.0;                ///< data.validation_fraction
  std::uint64_t chunkBytes = kDefaultChunkBytes;  ///< data.shard_mb, in bytes
};

/// (bytes of corpus encoded or found encoded, bytes in all); false stops the build.
using EncodeProgress = std::function<bool(std::uint64_t done, std::uint64_t total)>;

struct ShardBuildOptions {
  int threads = 0;          ///< 0 = every core
  EncodeProgress progress;  ///< called on the calling thread, a few times a second
};

class ShardedTokenStore {
 public:
  ShardedTokenStore() = default;

  /// Opens the store in `folder` when its index matches `key` and every shard is intact;
  /// otherwise encodes `corpusText` with `tokenizer`, reusing each shard that is intact and
  /// of this key, and opens the result. Throws DataError / TokenizerError, and Cancelled when
  /// options.progress returned false (finished shards stay for the next build).
  static ShardedTokenStore openOrBuild(const std::filesystem::path& folder,
                                       const std::filesystem::path& corpusText,
                                       const TokenStoreKey& key, const Tokenizer& tokenizer,
                                       const ShardBuildOptions& options = {});

  /// The finished store in `folder` when it matches `key`; nullopt with the reason in
  /// `whyNot` ("no store yet", "corpus changed", "tokenizer changed", "split changed",
  /// "shard train-00003.bin: truncated ...") otherwise.
  static std::optional<ShardedTokenStore> tryOpen(const std::filesystem::path& folder,
                                                  const TokenStoreKey& key,
                                                  std::string* whyNot = nullptr);

  /// The key the finished store in `folder` records (for processes that did not build it and
  /// have no corpus pass of their own), or nullopt.
  static std::optional<TokenStoreKey> recordedKey(const std::filesystem::path& folder);

  bool isOpen() const { return m_train.isOpen(); }
  const std::filesystem::path& folder() const { return m_folder; }
  const TokenSequence& train() const { return m_train; }
  const TokenSequence& validation() const { return m_validation; }
  std::int64_t lineCount() const { return m_train.lineCount() + m_validation.lineCount(); }
  std::int64_t tokenCount() const { return m_train.tokenCount() + m_validation.tokenCount(); }
  int vocabSize() const { return m_train.vocabSize(); }
  std::int64_t shardCount() const { return static_cast<std::int64_t>(m_train.parts().size()); }
  /// Corpus lines whose encoding was empty, left out of the store.
  std::int64_t emptyLines() const { return m_emptyLines; }

  /// True when openOrBuild encoded something (rather than reusing the finished store).
  bool wasBuilt() const { return m_built; }
  /// Why it was (re)built: "no store yet", "corpus changed", "tokenizer changed", ...
  const std::string& buildReason() const { return m_buildReason; }
  double buildSeconds() const { return m_buildSeconds; }
  std::int64_t shardsReused() const { return m_shardsReused; }
  std::int64_t shardsEncoded() const { return m_shardsEncoded; }

 private:
  friend class ShardedStoreBuilder;
  std::filesystem::path m_folder;
  TokenSequence m_train;
  TokenSequence m_validation;
  std::int64_t m_emptyLines = 0;
  bool m_built = false;
  std::string m_buildReason;
  double m_buildSeconds = 0.0;
  std::int64_t m_shardsReused = 0;
  std::int64_t m_shardsEncoded = 0;
};

}  // namespace attnlab::core
