// LibTorch (through the inspector) first.
#include "core/inspect/attention_inspector.h"

#include "app/gui/jobs/model_cache.h"

#include "analysis/runs/analysis_control.h"
#include "core/config/run_config.h"
#include "core/tokenizer/tokenizer.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <system_error>

namespace attnlab::app {

namespace fs = std::filesystem;

struct ModelCache::State {
  struct Entry {
    std::string key;
    std::unique_ptr<core::AttentionInspector> model;  ///< null while it loads
    std::size_t bytes = 0;
    bool lent = false;  ///< a borrower holds it (or loads it)
  };

  std::size_t maxModels, maxBytes;
  mutable std::mutex mutex;
  std::condition_variable returned;
  std::list<std::shared_ptr<Entry>> entries;  ///< most recently used first
  std::size_t loads = 0;
  std::map<std::string, std::size_t> loadsByKey;

  std::shared_ptr<Entry> findLocked(const std::string& key) const {
    const auto it =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e->key == key; });
    return it == entries.end() ? nullptr : *it;
  }

  std::size_t bytesLocked() const {
    std::size_t sum = 0;
    for (const auto& e : entries) sum += e->bytes;
    return sum;
  }

  /// Drops the least recently used models nobody holds until both bounds hold.
  void evictLocked() {
    for (auto it = entries.end(); it != entries.begin();) {
      if (entries.size() <= maxModels && bytesLocked() <= maxBytes) return;
      --it;
      if (!(*it)->lent && (*it)->model) it = entries.erase(it);
    }
  }

  void giveBack(const std::shared_ptr<Entry>& entry) {
    {
      std::lock_guard lock(mutex);
      entry->lent = false;
      evictLocked();
    }
    returned.notify_all();
  }
};

namespace {

/// One key per file, however it was named ("run/checkpoints/../checkpoints/step-8.h5").
std::string keyOf(const fs::path& checkpoint) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(checkpoint, ec);
  return (ec ? fs::absolute(checkpoint).lexically_normal() : canonical).string();
}

}  // namespace

ModelCache::ModelCache(std::size_t maxModels, std::size_t maxBytes)
    : m_state(std::make_shared<State>()) {
  m_state->maxModels = std::max<std::size_t>(1, maxModels);
  m_state->maxBytes = maxBytes;
}

ModelCache::~ModelCache() = default;

std::shared_ptr<core::AttentionInspector> ModelCache::borrow(const fs::path& checkpoint,
                                                             const std::atomic<bool>* cancel) {
  const std::string key = keyOf(checkpoint);
  const std::shared_ptr<State> state = m_state;
  std::unique_lock lock(state->mutex);
  std::shared_ptr<State::Entry> entry;
  for (;;) {
    analysis::throwIfCancelled(cancel, "waiting for the model of " + checkpoint.string());
    entry = state->findLocked(key);
    if (!entry) {
      entry = std::make_shared<State::Entry>();
      entry->key = key;
      state->entries.push_front(entry);
      break;
    }
    if (!entry->lent) break;
    state->returned.wait_for(lock, std::chrono::milliseconds(100));
  }
  entry->lent = true;
  state->entries.remove(entry);
  state->entries.push_front(entry);
  if (!entry->model) {
    lock.unlock();  // loading takes seconds: other checkpoints' borrowers need not wait
    std::unique_ptr<core::AttentionInspector> model;
    try {
      model = std::make_unique<core::AttentionInspector>(checkpoint);
    } catch (...) {
      lock.lock();
      state->entries.remove(entry);
      lock.unlock();
      state->returned.notify_all();
      throw;
    }
    const std::size_t bytes =
        estimateBytes(model->config(), static_cast<std::size_t>(model->tokenizer().vocabSize()));
    lock.lock();
    entry->model = std::move(model);
    entry->bytes = bytes;
    ++state->loads;
    ++state->loadsByKey[key];
    state->evictLocked();
  }
  core::AttentionInspector* model = entry->model.get();
  // The pointer gives the model back when its last copy goes (on whichever thread).
  return std::shared_ptr<core::AttentionInspector>(
      model, [state, entry](core::AttentionInspector*) { state->giveBack(entry); });
}

std::size_t ModelCache::loads() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->loads;
}

std::size_t ModelCache::loadsOf(const fs::path& checkpoint) const {
  std::lock_guard lock(m_state->mutex);
  const auto it = m_state->loadsByKey.find(keyOf(checkpoint));
  return it == m_state->loadsByKey.end() ? 0 : it->second;
}

std::size_t ModelCache::size() const {
  std::lock_guard lock(m_state->mutex);
  return static_cast<std::size_t>(std::count_if(m_state->entries.begin(), m_state->entries.end(),
                                                [](const auto& e) { return e->model != nullptr; }));
}

std::size_t ModelCache::bytes() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->bytesLocked();
}

bool ModelCache::contains(const fs::path& checkpoint) const {
  std::lock_guard lock(m_state->mutex);
  const auto entry = m_state->findLocked(keyOf(checkpoint));
  return entry && entry->model;
}

void ModelCache::setBounds(std::size_t maxModels, std::size_t maxBytes) {
  std::lock_guard lock(m_state->mutex);
  m_state->maxModels = std::max<std::size_t>(1, maxModels);
  m_state->maxBytes = maxBytes;
  m_state->evictLocked();
}

std::size_t ModelCache::estimateBytes(const core::RunConfig& config, std::size_t vocabulary) {
  const auto h = static_cast<std::size_t>(config.model.hiddenSize);
  const auto f = static_cast<std::size_t>(config.model.ffnSize);
  const auto layers = static_cast<std::size_t>(config.model.layers);
  const auto positions = static_cast<std::size_t>(config.model.maxPositions);
  // Per layer: Q, K, V and the output projection with biases, two feed-forward matrices with
  // biases, two layer norms.
  const std::size_t perLayer = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h;
  const std::size_t embeddings = (vocabulary + positions) * h + 2 * h;
  return sizeof(float) * (embeddings + layers * perLayer);
}

}  // namespace attnlab::app
