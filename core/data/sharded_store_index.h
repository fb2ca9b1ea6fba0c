#pragma once

// index.json of a sharded token store (core/data/sharded_token_store.h): the key it was
// built from, the chunk plan and every shard's counts. Written last, read first.

#include "core/data/corpus_chunks.h"
#include "core/data/sharded_token_store.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

inline constexpr int kShardedStoreVersion = 1;

/// One chunk of the corpus and what its two shard files hold.
struct ShardRecord {
  CorpusChunk chunk;
  std::int64_t trainLines = 0;
  std::int64_t trainTokens = 0;
  std::int64_t validationLines = 0;
  std::int64_t validationTokens = 0;
  std::int64_t emptyLines = 0;  ///< lines whose encoding was empty (left out)
};

struct StoreIndex {
  TokenStoreKey key;
  int vocabSize = 0;
  std::uint64_t chunkBytes = 0;
  std::int64_t corpusLines = 0;
  std::uint64_t corpusBytes = 0;
  std::vector<ShardRecord> shards;
};

enum class ShardRole { Train, Validation };

/// "train-00003.bin", "validation-00003.bin".
std::string shardFileName(ShardRole role, std::size_t index);

/// The corpus-fingerprint field of a shard file: the store key, the chunk and the role
/// together, so a shard of another corpus, split, chunk plan or role never passes for it.
std::uint64_t shardFingerprint(const TokenStoreKey& key, const CorpusChunk& chunk,
                               std::size_t index, ShardRole role);

/// Writes <folder>/index.json atomically.
void writeStoreIndex(const std::filesystem::path& folder, const StoreIndex& index);

/// Reads <folder>/index.json; nullopt with the reason when it is missing or malformed.
std::optional<StoreIndex> readStoreIndex(const std::filesystem::path& folder,
                                         std::string* whyNot = nullptr);

/// Why a store built with `recorded` cannot serve `wanted` ("corpus changed", ...), or "".
std::string keyMismatch(const TokenStoreKey& recorded, const TokenStoreKey& wanted);

}  // namespace attnlab::core
