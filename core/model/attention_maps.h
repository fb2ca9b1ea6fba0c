#pragma once

#include "core/config/run_config.h"

namespace attnlab::core {

/// What a model's attention maps (the hook points attn.probs and attn.pattern) are, from
/// its config: the analyses built for probability rows read the others as |s| / sum |s|
/// per row (Gu et al. 2025's normalisation; normalisedMap in core/health/attention_health.h).
enum class AttentionMaps {
  Probabilities,  ///< softmax rows summing to 1 (the papers' BERT)
  Unnormalised,   ///< weights >= 0 whose rows need not sum to 1: softmax1, softpick, sigmoid,
                  ///< clipped softmax; the pattern of convolved attention (ReLU output)
  Signed          ///< differential attention's p1 - lambda p2
};

inline AttentionMaps attentionMapsOf(const AttentionConfig& a) {
  if (a.differential) return AttentionMaps::Signed;
  if (a.normalizer != Normalizer::Softmax) return AttentionMaps::Unnormalised;
  return AttentionMaps::Probabilities;
}

/// The pattern (after convolved attention) likewise: a convolution's ReLU output is no
/// distribution either.
inline AttentionMaps patternMapsOf(const AttentionConfig& a) {
  const auto maps = attentionMapsOf(a);
  if (maps == AttentionMaps::Probabilities && a.conv != ConvAttention::None)
    return AttentionMaps::Unnormalised;
  return maps;
}

/// How the analyses read such maps, for reports: "probabilities" or "|s| / sum |s|".
inline const char* mapNormalisationText(AttentionMaps maps) {
  return maps == AttentionMaps::Probabilities ? "probabilities" : "|s| / sum |s| per row";
}

}  // namespace attnlab::core
