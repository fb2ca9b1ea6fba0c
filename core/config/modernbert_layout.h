#pragma once

#include "core/config/run_config.h"

namespace attnlab::core {

/// ModernBERT's structure (Warner et al. 2024; docs/modern-encoders.md) on `m`: Pre-LN without
/// layer 0's attention norm, rotary positions instead of the position table, GeGLU, no
/// biases. Shapes, RoPE bases, the window, the epsilon and dropout are left to the caller
/// (a checkpoint's config.json, a benchmark's shape).
inline void useModernBertLayout(ModelConfig& m) {
  m.norm = NormPlacement::Pre;
  m.firstAttentionNorm = false;
  m.positionEmbeddings = false;
  m.position = PositionEncoding::Rope;
  m.feedForward = FeedForward::Geglu;
  m.bias = false;
}

}  // namespace attnlab::core
