#pragma once

// The inspections already made, kept so that moving the checkpoint slider back and forth over
// one text repaints at once instead of loading a model and running it again (a BERT-base
// checkpoint takes 2 to 3 s to load). Least recently used frames go first once the frames'
// tensors exceed a byte budget. Shared by the GUI thread (look-ups) and the inspection thread
// (insertions): every member function locks.

#include "app/gui/inspection_frame.h"

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>

namespace attnlab::app {

class InspectionCache {
 public:
  /// Frames are dropped, oldest use first, while their tensors hold more than `budgetBytes`;
  /// 0 keeps nothing.
  explicit InspectionCache(std::size_t budgetBytes);

  void setBudget(std::size_t budgetBytes);
  /// A frame of `text` under `checkpoint` that holds what `options` asks for (a frame with the
  /// scores also answers a request without them); it becomes the most recently used.
  std::optional<InspectionFrame> find(const QString& checkpoint, const QString& text,
                                      const InspectionRequestOptions& options);
  bool contains(const QString& checkpoint, const QString& text,
                const InspectionRequestOptions& options) const;
  /// Keeps `frame`, replacing a frame of the same checkpoint and text.
  void insert(const InspectionFrame& frame);
  void clear();
  std::size_t bytes() const;
  std::size_t size() const;

  /// The bytes of a frame's tensors (probabilities, scores, keep-masks).
  static std::size_t frameBytes(const InspectionFrame& frame);
  /// True when `frame` holds what `options` asks for.
  static bool satisfies(const InspectionFrame& frame, const InspectionRequestOptions& options);

 private:
  void evictLocked();

  mutable std::mutex m_mutex;
  std::size_t m_budget;
  std::size_t m_bytes = 0;
  std::list<InspectionFrame> m_frames;  ///< most recently used first
};

}  // namespace attnlab::app
