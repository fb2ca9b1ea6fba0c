#pragma once

// What the inspection thread adds to a frame beyond the attention weights: the norm-based
// attention, the rollout after each layer and the logit lens (with the pieces of the
// predicted tokens), and the grid thumbnails of each view, so that switching the Inspect
// tab's view only redraws. Runs on the inspection thread; LibTorch stays in the .cpp.

#include "app/gui/inspection_frame.h"

namespace at {
class Tensor;
}

namespace attnlab::core {
struct Inspection;
class Tokenizer;
}  // namespace attnlab::core

namespace attnlab::app {

/// A float32 CPU view of `t` that owns a reference to it (no copy when `t` is already a
/// contiguous float32 CPU tensor); null for an undefined tensor.
std::shared_ptr<const float> shareTensor(const at::Tensor& t);

/// Fills `frame`'s norms, rollout, lens, masked positions and original pieces from
/// `inspection` (frame.probabilities, layers, heads and length already set).
void addBeyondWeights(InspectionFrame& frame, const core::Inspection& inspection,
                      const core::Tokenizer& tokenizer);

/// The grid thumbnails of the scores (when captured) and of the views beyond the weights.
void addViewThumbnails(InspectionFrame& frame);

}  // namespace attnlab::app
