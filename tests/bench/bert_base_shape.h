#pragma once

// BERT-base's shape (12 layers, 12 heads, hidden 768, FFN 3072, 512 positions) without dropout,
// for the benchmarks that time analyses on it with random weights (their times do not depend
// on the weights).

#include "core/config/run_config.h"

namespace attnlab::bench {

inline core::ModelConfig bertBaseShape() {
  core::ModelConfig c;
  c.layers = 12;
  c.hiddenSize = 768;
  c.heads = 12;
  c.ffnSize = 3072;
  c.maxPositions = 512;
  c.dropout = 0.0;
  c.attentionDropout = 0.0;
  return c;
}

}  // namespace attnlab::bench
