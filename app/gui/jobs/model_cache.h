#pragma once

// One loaded model per checkpoint, shared by the Inspect tab's passes and the query-key maps
// (and any job that takes a model, analysis/jobs' ModelLender): a BERT-base checkpoint takes
// 2 to 3 s and 440 MB to load, so a second use of it borrows the one kept instead of loading
// it again. A core::AttentionInspector is not safe for concurrent forward passes, so a model
// is lent to one user at a time: a second borrower of the same checkpoint waits until it is
// given back (other checkpoints do not wait). The models kept are bounded by number and by an
// estimate of their parameters' bytes; the least recently used one that nobody holds goes
// first. Thread-safe: jobs borrow on their own threads.

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>

namespace attnlab::core {
class AttentionInspector;
struct RunConfig;
}  // namespace attnlab::core

namespace attnlab::app {

class ModelCache {
 public:
  /// The current checkpoint's model and its two neighbours' (what the Inspect tab prefetches).
  static constexpr std::size_t kDefaultModels = 3;
  static constexpr std::size_t kDefaultBytes = std::size_t{2} << 30;

  explicit ModelCache(std::size_t maxModels = kDefaultModels, std::size_t maxBytes = kDefaultBytes);
  ~ModelCache();
  ModelCache(const ModelCache&) = delete;
  ModelCache& operator=(const ModelCache&) = delete;

  /// The model of `checkpoint` (a checkpoint file or a model folder), loaded at its first
  /// request and kept, for the caller's use alone until the pointer and its copies are gone.
  /// Waits while another holds it, checking `cancel` every 100 ms (attnlab::Cancelled when
  /// set). Throws what loading it throws, and keeps nothing then.
  std::shared_ptr<core::AttentionInspector> borrow(const std::filesystem::path& checkpoint,
                                                   const std::atomic<bool>* cancel = nullptr);

  /// Models loaded since construction (a second borrow of a kept model loads none).
  std::size_t loads() const;
  /// Times the model of `checkpoint` was loaded (more than once only after it was dropped).
  std::size_t loadsOf(const std::filesystem::path& checkpoint) const;
  std::size_t size() const;   ///< models kept
  std::size_t bytes() const;  ///< their estimated parameter bytes
  bool contains(const std::filesystem::path& checkpoint) const;
  /// New bounds; models nobody holds are dropped until both hold.
  void setBounds(std::size_t maxModels, std::size_t maxBytes);

  /// Parameter bytes of a model of `config` with `vocabulary` pieces (float32 weights of the
  /// embeddings, attention, feed-forward and layer norms; the MLM head shares the embedding).
  static std::size_t estimateBytes(const core::RunConfig& config, std::size_t vocabulary);

 private:
  struct State;
  std::shared_ptr<State> m_state;  ///< shared with the models lent out
};

}  // namespace attnlab::app
