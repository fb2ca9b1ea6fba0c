#pragma once

// The logit lens for a masked language model: the model's own MLM head applied to every
// layer's output (after the final LayerNorm of a Pre-LN model, as the output gets it), so
// each layer is read as a prediction over the vocabulary. The last row is the model's own
// prediction: the last layer's, or with SesameBERT's layer weights, one more row for the
// weighted combination the head really reads.

#include <ATen/core/Tensor.h>

#include <vector>

namespace attnlab::core {

class MaskedLanguageModelImpl;

/// The lens at chosen positions: for row r (a layer, or the output) and position n.
struct LensRows {
  at::Tensor rank;         ///< [R, N] int64: tokens scored above the target (0 = top prediction)
  at::Tensor entropy;      ///< [R, N] float32: of the row's prediction, nats
  at::Tensor klToFinal;    ///< [R, N] float32: KL(output || row), nats; 0 on the output row
  bool outputRow = false;  ///< the last row is the SesameBERT combination, not a layer
};

/// The lens over every position of one sequence, for the Inspect view.
struct LensPredictions {
  at::Tensor topIds;             ///< [R, T, K] int64, most probable first
  at::Tensor topProbabilities;   ///< [R, T, K] float32
  at::Tensor targetRank;         ///< [R, T] int64: rank of the position's target token
  at::Tensor targetProbability;  ///< [R, T] float32
  bool outputRow = false;
};

/// What the lens reads of one forward pass.
struct LensInput {
  std::vector<at::Tensor> layerOutputs;  ///< [B, T, hidden] per layer ("blocks.{L}.resid_post")
  at::Tensor finalHidden;                ///< [B, T, hidden]: what the MLM head reads
  bool combinedOutput = false;           ///< SesameBERT: finalHidden is not the last layer's
};

/// The lens at the flat positions `positions` [N] (indices into B x T) with the true tokens
/// `targets` [N].
LensRows lensAt(MaskedLanguageModelImpl& model, const LensInput& input, const at::Tensor& positions,
                const at::Tensor& targets);

/// The lens at every position of a one-sequence pass (B = 1), the `top` best tokens of
/// each row and the rank of `targets` [T] (the tokens before any masking).
LensPredictions lensPredictions(MaskedLanguageModelImpl& model, const LensInput& input,
                                const at::Tensor& targets, int top);

}  // namespace attnlab::core
