#pragma once

// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers",
// section 3; their code: samiraabnar/attention_flow, compute_joint_attention): how attention
// composes across layers once the residual connection is counted. Per layer l the heads'
// mean attention plus the identity (the residual), rows renormalised,
//     A~_l = rownorm(mean_h A_l,h + I),
// and the rollout R_0 = A~_0, R_l = A~_l R_(l-1): R_l[i][j] is how much of position j's
// input reaches position i's output of layer l. Plain C++ and the system BLAS (no Qt, no
// LibTorch).

#include <cstddef>
#include <vector>

namespace attnlab::analysis {

/// One sequence's attention of every layer and head: [layers][heads][length][length]
/// row-major floats (a row is a query's distribution over keys), as snapshots and the
/// inspector hold it.
struct AttentionStack {
  const float* data = nullptr;
  int layers = 0;
  int heads = 0;
  int length = 0;
};

/// The rollout after every layer: [layers][valid][valid] row-major, in double precision
/// (a product of up to 24 row-stochastic matrices). Only the first `valid` positions take
/// part (padding keys and queries are left out; `valid` < 0 means every position); each
/// augmented row is renormalised over them. Rows of the result sum to 1. Throws
/// std::invalid_argument for an empty stack, a null pointer or `valid` beyond the length.
std::vector<double> attentionRollout(const AttentionStack& attention, int valid = -1);

}  // namespace attnlab::analysis
