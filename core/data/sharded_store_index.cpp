#include "core/data/sharded_store_index.h"

#include "core/data/data_files.h"
#include "core/data/hashing.h"

#include <nlohmann/json.hpp>

#include <bit>
#include <cstdio>
#include <fstream>

namespace attnlab::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kIndexFile = "index.json";
constexpr const char* kFormat = "attnlab-token-store";

std::uint64_t parseHex64(const std::string& text) {
  std::size_t used = 0;
  const std::uint64_t value = std::stoull(text, &used, 16);
  if (used != text.size()) throw std::invalid_argument("not a hex number: " + text);
  return value;
}

json shardJson(const ShardRecord& r) {
  return json{{"byte_begin", r.chunk.byteBegin},
              {"byte_end", r.chunk.byteEnd},
              {"first_line", r.chunk.firstLine},
              {"lines", r.chunk.lineCount},
              {"train_lines", r.trainLines},
              {"train_tokens", r.trainTokens},
              {"validation_lines", r.validationLines},
              {"validation_tokens", r.validationTokens},
              {"empty_lines", r.emptyLines}};
}

ShardRecord shardRecord(const json& j) {
  ShardRecord r;
  r.chunk.byteBegin = j.at("byte_begin").get<std::uint64_t>();
  r.chunk.byteEnd = j.at("byte_end").get<std::uint64_t>();
  r.chunk.firstLine = j.at("first_line").get<std::int64_t>();
  r.chunk.lineCount = j.at("lines").get<std::int64_t>();
  r.trainLines = j.at("train_lines").get<std::int64_t>();
  r.trainTokens = j.at("train_tokens").get<std::int64_t>();
  r.validationLines = j.at("validation_lines").get<std::int64_t>();
  r.validationTokens = j.at("validation_tokens").get<std::int64_t>();
  r.emptyLines = j.at("empty_lines").get<std::int64_t>();
  return r;
}

}  // namespace

std::string shardFileName(ShardRole role, std::size_t index) {
  char name[48];
  std::snprintf(name, sizeof name, "%s-%05zu.bin",
                role == ShardRole::Train ? "train" : "validation", index);
  return name;
}

std::uint64_t shardFingerprint(const TokenStoreKey& key, const CorpusChunk& chunk,
                               std::size_t index, ShardRole role) {
  std::uint64_t h = mixSeed(key.corpusFingerprint, static_cast<std::uint64_t>(key.validationLines));
  h = mixSeed(h, std::bit_cast<std::uint64_t>(key.validationFraction));
  h = mixSeed(h, key.chunkBytes);
  h = mixSeed(h, chunk.byteBegin);
  h = mixSeed(h, chunk.byteEnd);
  h = mixSeed(h, static_cast<std::uint64_t>(chunk.firstLine));
  h = mixSeed(h, static_cast<std::uint64_t>(chunk.lineCount));
  h = mixSeed(h, index);
  return mixSeed(h, role == ShardRole::Train ? 1 : 2);
}

void writeStoreIndex(const fs::path& folder, const StoreIndex& index) {
  json shards = json::array();
  for (const ShardRecord& r : index.shards) shards.push_back(shardJson(r));
  const json j{{"format", kFormat},
               {"version", kShardedStoreVersion},
               {"corpus_fingerprint", toHex64(index.key.corpusFingerprint)},
               {"tokenizer_fingerprint", toHex64(index.key.tokenizerFingerprint)},
               {"validation_lines", index.key.validationLines},
               {"validation_fraction", index.key.validationFraction},
               {"vocab_size", index.vocabSize},
               {"chunk_bytes", index.chunkBytes},
               {"corpus_lines", index.corpusLines},
               {"corpus_bytes", index.corpusBytes},
               {"shards", shards}};
  writeFileAtomically(folder / kIndexFile, j.dump(1) + "\n");
}

std::optional<StoreIndex> readStoreIndex(const fs::path& folder, std::string* whyNot) {
  auto fail = [&](std::string reason) -> std::optional<StoreIndex> {
    if (whyNot != nullptr) *whyNot = std::move(reason);
    return std::nullopt;
  };
  std::ifstream in(folder / kIndexFile, std::ios::binary);
  if (!in) return fail("no store yet");
  try {
    const json j = json::parse(in);
    if (j.at("format") != kFormat) return fail("index.json is not a token store index");
    if (j.at("version").get<int>() != kShardedStoreVersion) {
      return fail("store format version " + j.at("version").dump() + ", this build writes " +
                  std::to_string(kShardedStoreVersion));
    }
    StoreIndex index;
    index.key.corpusFingerprint = parseHex64(j.at("corpus_fingerprint").get<std::string>());
    index.key.tokenizerFingerprint = parseHex64(j.at("tokenizer_fingerprint").get<std::string>());
    index.key.validationLines = j.at("validation_lines").get<std::int64_t>();
    index.key.validationFraction = j.at("validation_fraction").get<double>();
    index.vocabSize = j.at("vocab_size").get<int>();
    index.chunkBytes = j.at("chunk_bytes").get<std::uint64_t>();
    index.key.chunkBytes = index.chunkBytes;
    index.corpusLines = j.at("corpus_lines").get<std::int64_t>();
    index.corpusBytes = j.at("corpus_bytes").get<std::uint64_t>();
    for (const json& s : j.at("shards")) index.shards.push_back(shardRecord(s));
    return index;
  } catch (const std::exception& e) {
    return fail(std::string("unreadable index.json (") + e.what() + ")");
  }
}

std::string keyMismatch(const TokenStoreKey& recorded, const TokenStoreKey& wanted) {
  if (recorded.corpusFingerprint != wanted.corpusFingerprint) return "corpus changed";
  if (recorded.tokenizerFingerprint != wanted.tokenizerFingerprint) return "tokenizer changed";
  if (recorded.validationLines != wanted.validationLines ||
      recorded.validationFraction != wanted.validationFraction) {
    return "validation split changed";
  }
  if (recorded.chunkBytes != wanted.chunkBytes) return "shard size (data.shard_mb) changed";
  return {};
}

}  // namespace attnlab::core
