#include "core/data/sharded_token_store.h"

#include "core/data/blocks.h"
#include "core/data/sharded_store_index.h"
#include "core/errors/error.h"
#include "core/tokenizer/tokenizer.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

/// The ids of one role's lines of a chunk, back to back, and each line's length.
struct EncodedLines {
  std::vector<std::int32_t> ids;
  std::vector<std::uint64_t> lengths;
  void add(const std::vector<int>& line) {
    ids.insert(ids.end(), line.begin(), line.end());
    lengths.push_back(line.size());
  }
};

/// Temporaries ("<name>.tmp-<pid>") a killed build left: removed unless their process lives.
void removeStaleTemporaries(const fs::path& folder) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    const auto at = name.rfind(".tmp-");
    if (at == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + at + 5, nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)) continue;
    std::error_code removeEc;
    fs::remove(entry.path(), removeEc);
  }
}

/// Both shard files of chunk `i` when intact and of this key, with their counts.
std::optional<ShardRecord> openShardPair(const fs::path& folder, const TokenStoreKey& key,
                                         const CorpusChunk& chunk, std::size_t i,
                                         std::string* whyNot, TokenStore* train = nullptr,
                                         TokenStore* validation = nullptr) {
  ShardRecord r{chunk};
  for (const ShardRole role : {ShardRole::Train, ShardRole::Validation}) {
    const std::string name = shardFileName(role, i);
    std::string why;
    auto store = TokenStore::tryOpen(folder / name, shardFingerprint(key, chunk, i, role),
                                     key.tokenizerFingerprint, &why);
    if (!store) {
      if (whyNot != nullptr) *whyNot = "shard " + name + ": " + why;
      return std::nullopt;
    }
    const bool isTrain = role == ShardRole::Train;
    (isTrain ? r.trainLines : r.validationLines) = store->lineCount();
    (isTrain ? r.trainTokens : r.validationTokens) = store->tokenCount();
    TokenStore* keep = isTrain ? train : validation;
    if (keep != nullptr) *keep = std::move(*store);
  }
  r.emptyLines = chunk.lineCount - r.trainLines - r.validationLines;
  return r;
}

}  // namespace

/// One build: chunks handed to worker threads in turn, each encoded into (or found as) its
/// own pair of shard files, while the calling thread reports progress.
class ShardedStoreBuilder {
 public:
  ShardedStoreBuilder(fs::path folder, fs::path corpusText, const TokenStoreKey& key,
                      const Tokenizer& tokenizer, const ShardBuildOptions& options)
      : m_folder(std::move(folder)),
        m_corpusText(std::move(corpusText)),
        m_key(key),
        m_tokenizer(tokenizer),
        m_options(options) {}

  void build() {
    m_plan = planCorpusChunks(m_corpusText, m_key.chunkBytes);
    DataConfig split;
    split.validationLines = m_key.validationLines;
    split.validationFraction = m_key.validationFraction;
    m_rule.emplace(m_plan.lineCount, split);
    m_records.assign(m_plan.chunks.size(), ShardRecord{});
    m_errors.assign(m_plan.chunks.size(), nullptr);
    int threads = m_options.threads > 0
                      ? m_options.threads
                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::clamp<int>(threads, 1, std::max<int>(1, static_cast<int>(m_records.size())));
    m_running = threads;
    if (m_options.progress && !m_options.progress(0, m_plan.bytes)) m_stop = true;
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([this] { work(); });
    reportUntilDone();
    for (auto& t : pool) t.join();
    for (const auto& e : m_errors) {
      if (e) std::rethrow_exception(e);
    }
    if (m_stop && m_reused + m_encoded < static_cast<std::int64_t>(m_records.size())) {
      throw Cancelled("token store", "stopped on request; " + std::to_string(m_reused + m_encoded) +
                                         " of " + std::to_string(m_records.size()) +
                                         " shards are finished and a restart keeps them");
    }
    writeStoreIndex(m_folder, index());
  }

  std::int64_t reused() const { return m_reused; }
  std::int64_t encoded() const { return m_encoded; }

 private:
  StoreIndex index() const {
    StoreIndex idx{
        m_key,    m_tokenizer.vocabSize(), m_key.chunkBytes, m_plan.lineCount, m_plan.bytes,
        m_records};
    return idx;
  }

  void work() {
    for (;;) {
      const std::size_t i = m_next.fetch_add(1);
      if (i >= m_records.size() || m_stop) break;
      try {
        const CorpusChunk& chunk = m_plan.chunks[i];
        if (auto found = openShardPair(m_folder, m_key, chunk, i, nullptr)) {
          m_records[i] = *found;
          ++m_reused;
        } else {
          m_records[i] = encode(i);
          ++m_encoded;
        }
        m_bytesDone += chunk.byteEnd - chunk.byteBegin;
        m_wake.notify_all();  // a progress report per finished chunk
      } catch (...) {
        m_errors[i] = std::current_exception();
        m_stop = true;
      }
    }
    std::lock_guard lock(m_mutex);
    --m_running;
    m_wake.notify_all();
  }

  ShardRecord encode(std::size_t i) {
    const CorpusChunk& chunk = m_plan.chunks[i];
    const std::string text = readCorpusChunk(m_corpusText, chunk);
    EncodedLines train;
    EncodedLines validation;
    ShardRecord r{chunk};
    std::int64_t line = chunk.firstLine;
    for (std::size_t begin = 0; begin < text.size(); ++line) {
      std::size_t end = text.find('\n', begin);
      if (end == std::string::npos) end = text.size();
      const std::vector<int> ids =
          m_tokenizer.encode(std::string_view(text).substr(begin, end - begin));
      begin = end + 1;
      if (ids.empty()) {
        ++r.emptyLines;  // nothing to learn from; left out so blocks need no line list
        continue;
      }
      (m_rule->isValidation(line) ? validation : train).add(ids);
    }
    if (line != chunk.firstLine + chunk.lineCount) {
      throw DataError(m_corpusText.string(), "changed while the token store was built");
    }
    const int vocab = m_tokenizer.vocabSize();
    TokenStore::writeFlat(m_folder / shardFileName(ShardRole::Train, i), train.ids, train.lengths,
                          vocab, shardFingerprint(m_key, chunk, i, ShardRole::Train),
                          m_key.tokenizerFingerprint);
    TokenStore::writeFlat(m_folder / shardFileName(ShardRole::Validation, i), validation.ids,
                          validation.lengths, vocab,
                          shardFingerprint(m_key, chunk, i, ShardRole::Validation),
                          m_key.tokenizerFingerprint);
    r.trainLines = static_cast<std::int64_t>(train.lengths.size());
    r.trainTokens = static_cast<std::int64_t>(train.ids.size());
    r.validationLines = static_cast<std::int64_t>(validation.lengths.size());
    r.validationTokens = static_cast<std::int64_t>(validation.ids.size());
    return r;
  }

  /// Progress from the calling thread (callbacks may touch its objects), until the workers end.
  void reportUntilDone() {
    std::unique_lock lock(m_mutex);
    std::uint64_t reported = 0;
    for (;;) {
      m_wake.wait_for(lock, std::chrono::milliseconds(250),
                      [&] { return m_running == 0 || m_bytesDone.load() != reported; });
      const bool finished = m_running == 0;
      reported = m_bytesDone.load();
      if (m_options.progress) {
        lock.unlock();
        if (!m_options.progress(reported, m_plan.bytes)) m_stop = true;
        lock.lock();
      }
      if (finished) return;
    }
  }

  fs::path m_folder;
  fs::path m_corpusText;
  TokenStoreKey m_key;
  const Tokenizer& m_tokenizer;
  ShardBuildOptions m_options;
  CorpusPlan m_plan;
  std::optional<ValidationRule> m_rule;
  std::vector<ShardRecord> m_records;
  std::vector<std::exception_ptr> m_errors;
  std::atomic<std::size_t> m_next{0};
  std::atomic<std::uint64_t> m_bytesDone{0};
  std::atomic<bool> m_stop{false};
  std::atomic<std::int64_t> m_reused{0};
  std::atomic<std::int64_t> m_encoded{0};
  std::mutex m_mutex;
  std::condition_variable m_wake;
  int m_running = 0;
};

std::optional<ShardedTokenStore> ShardedTokenStore::tryOpen(const fs::path& folder,
                                                            const TokenStoreKey& key,
                                                            std::string* whyNot) {
  std::string why;
  const auto index = readStoreIndex(folder, &why);
  if (index && why.empty()) why = keyMismatch(index->key, key);
  std::vector<TokenStore> train(index ? index->shards.size() : 0);
  std::vector<TokenStore> validation(train.size());
  ShardedTokenStore store;
  for (std::size_t i = 0; why.empty() && i < train.size(); ++i) {
    const ShardRecord& want = index->shards[i];
    const auto got = openShardPair(folder, key, want.chunk, i, &why, &train[i], &validation[i]);
    if (got && (got->trainTokens != want.trainTokens || got->trainLines != want.trainLines ||
                got->validationTokens != want.validationTokens ||
                got->validationLines != want.validationLines)) {
      why = "shard " + shardFileName(ShardRole::Train, i) + ": counts differ from index.json";
    }
    if (got) store.m_emptyLines += got->emptyLines;
  }
  if (why.empty() && train.empty()) why = "the index lists no shards";
  if (!why.empty()) {
    if (whyNot != nullptr) *whyNot = why;
    return std::nullopt;
  }
  store.m_folder = folder;
  store.m_train = TokenSequence(std::move(train));
  store.m_validation = TokenSequence(std::move(validation));
  return store;
}

std::optional<TokenStoreKey> ShardedTokenStore::recordedKey(const fs::path& folder) {
  const auto index = readStoreIndex(folder);
  if (!index) return std::nullopt;
  return index->key;
}

ShardedTokenStore ShardedTokenStore::openOrBuild(const fs::path& folder, const fs::path& corpusText,
                                                 const TokenStoreKey& key,
                                                 const Tokenizer& tokenizer,
                                                 const ShardBuildOptions& options) {
  std::string reason;
  if (auto store = tryOpen(folder, key, &reason)) return std::move(*store);
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw DataError(folder.string(), "cannot create the folder: " + ec.message());
  fs::remove(folder / "index.json", ec);  // the store is unfinished from here on
  removeStaleTemporaries(folder);
  ShardedStoreBuilder builder(folder, corpusText, key, tokenizer, options);
  builder.build();
  std::string again;
  auto store = tryOpen(folder, key, &again);
  if (!store) {
    throw DataError(folder.string(), "the token store just written is unreadable: " + again);
  }
  store->m_built = true;
  store->m_buildReason = reason;
  store->m_shardsReused = builder.reused();
  store->m_shardsEncoded = builder.encoded();
  store->m_buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return std::move(*store);
}

}  // namespace attnlab::core
