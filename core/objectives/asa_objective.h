#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace attnlab::core {

/// KL divergence between the predictive distributions of two passes, from logits [N, V]:
///   forward (paper):   mean over the N rows of KL(softmax(clean) || softmax(adversarial))
///   symmetric (code):  0.5 * (KL(clean || adv) + KL(adv || clean)), each a mean over rows
/// Neither side is detached (as the official code). Returns a 0-d tensor (nats).
at::Tensor predictionKl(const at::Tensor& cleanLogits, const at::Tensor& adversarialLogits,
                        bool symmetric);

/// The same divergence per sequence, the official code's KLDivLoss(reduction="batchmean") on
/// [B, T, V] logits: the per-row KL (or its symmetric form) summed over the rows [R, V]
/// given (the batch's real positions) and over the vocabulary, divided by `sequences` (B),
/// not by R. Neither side detached. Returns a 0-d tensor (nats per sequence).
at::Tensor predictionKlPerSequence(const at::Tensor& cleanLogits,
                                   const at::Tensor& adversarialLogits, bool symmetric,
                                   std::int64_t sequences);

/// The mask penalty: sum over layers of M.sum() / B, times tau (paper) or tau^2 (code).
/// M are keep-masks [B, T, T] (1 = keep). Through the adversary's gradient reversal, adding
/// it to the loss makes the adversary pay for every masked cell.
at::Tensor maskPenalty(const std::vector<at::Tensor>& keepMasks, double tau, bool squared);

/// The share of real (query, key) cells that a keep-mask masks: count(M = 0 on cells whose
/// query and key are both real) / count(such cells). 0-d tensor, detached.
at::Tensor maskingProportion(const at::Tensor& keepMask, const at::Tensor& attentionMask);

}  // namespace attnlab::core
