#include "app/gui/inspection_cache.h"

#include <algorithm>

namespace attnlab::app {

InspectionCache::InspectionCache(std::size_t budgetBytes) : m_budget(budgetBytes) {}

std::size_t InspectionCache::frameBytes(const InspectionFrame& frame) {
  const std::size_t cells = static_cast<std::size_t>(frame.length) * frame.length;
  const std::size_t head = cells * sizeof(float) * static_cast<std::size_t>(frame.heads);
  std::size_t bytes = head * frame.probabilities.size() + head * frame.scores.size();
  if (frame.asaMasks) bytes += cells * sizeof(float) * static_cast<std::size_t>(frame.layers);
  if (frame.thumbnails)
    for (const auto& t : *frame.thumbnails) bytes += t.values.size() * sizeof(float);
  bytes += head * frame.headNorms.size();
  bytes += cells * sizeof(float) * frame.layerNorms.size();
  bytes += static_cast<std::size_t>(frame.length) * frame.heads * sizeof(float) *
           frame.valueNorms.size();
  if (frame.rollout) bytes += frame.rollout->size() * sizeof(float);
  if (frame.lens)
    bytes += frame.lens->topIds.size() * (sizeof(qint64) + sizeof(float) + 16) +
             frame.lens->targetRank.size() * (sizeof(qint64) + sizeof(float));
  for (const auto& thumbs : frame.viewThumbnails)
    if (thumbs)
      for (const auto& t : *thumbs) bytes += t.values.size() * sizeof(float);
  return bytes;
}

bool InspectionCache::satisfies(const InspectionFrame& frame,
                                const InspectionRequestOptions& options) {
  return (!options.scores || !frame.scores.empty()) &&
         (!options.asaMasks || !frame.hasAsa || frame.asaMasks) &&
         (!options.beyondWeights ||
          (frame.hasBeyondWeights() && (options.lensTop <= 0 || !frame.hasMlmHead ||
                                        (frame.lens && frame.lens->top >= options.lensTop)))) &&
         frame.maskRequest == options.maskPositions;
}

void InspectionCache::setBudget(std::size_t budgetBytes) {
  std::lock_guard lock(m_mutex);
  m_budget = budgetBytes;
  evictLocked();
}

std::optional<InspectionFrame> InspectionCache::find(const QString& checkpoint, const QString& text,
                                                     const InspectionRequestOptions& options) {
  std::lock_guard lock(m_mutex);
  const auto it = std::find_if(m_frames.begin(), m_frames.end(), [&](const InspectionFrame& f) {
    return f.checkpoint == checkpoint && f.text == text && satisfies(f, options);
  });
  if (it == m_frames.end()) return std::nullopt;
  m_frames.splice(m_frames.begin(), m_frames, it);
  return m_frames.front();
}

bool InspectionCache::contains(const QString& checkpoint, const QString& text,
                               const InspectionRequestOptions& options) const {
  std::lock_guard lock(m_mutex);
  return std::any_of(m_frames.begin(), m_frames.end(), [&](const InspectionFrame& f) {
    return f.checkpoint == checkpoint && f.text == text && satisfies(f, options);
  });
}

void InspectionCache::insert(const InspectionFrame& frame) {
  std::lock_guard lock(m_mutex);
  const auto same = std::find_if(m_frames.begin(), m_frames.end(), [&](const InspectionFrame& f) {
    return f.checkpoint == frame.checkpoint && f.text == frame.text &&
           f.maskRequest == frame.maskRequest;
  });
  if (same != m_frames.end()) {
    m_bytes -= frameBytes(*same);
    m_frames.erase(same);
  }
  m_frames.push_front(frame);
  m_bytes += frameBytes(frame);
  evictLocked();
}

void InspectionCache::clear() {
  std::lock_guard lock(m_mutex);
  m_frames.clear();
  m_bytes = 0;
}

std::size_t InspectionCache::bytes() const {
  std::lock_guard lock(m_mutex);
  return m_bytes;
}

std::size_t InspectionCache::size() const {
  std::lock_guard lock(m_mutex);
  return m_frames.size();
}

void InspectionCache::evictLocked() {
  while (!m_frames.empty() && m_bytes > m_budget) {
    m_bytes -= frameBytes(m_frames.back());
    m_frames.pop_back();
  }
}

}  // namespace attnlab::app
