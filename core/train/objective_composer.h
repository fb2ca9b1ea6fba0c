#pragma once

#include "core/config/run_config.h"
#include "core/objectives/attention_guidance.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

class MaskedLanguageModelImpl;
class SentencePieceTokenizer;

/// One training micro-batch's losses. Everything but `total` is detached and stays on the
/// device; the trainer reads it once per logging interval.
struct StepOutcome {
  at::Tensor total;      ///< what backward() runs on
  at::Tensor mlm;        ///< MLM loss of the clean pass
  at::Tensor correct;    ///< clean pass: correctly predicted selected positions
  at::Tensor predicted;  ///< clean pass: selected positions
  /// Named scalar parts for the log: "guidance/loss" (unweighted), "guidance/<pattern>",
  /// "asa/token_kl", "asa/sentence_kl", "asa/penalty" (weighted as added).
  std::map<std::string, at::Tensor> scalars;
  at::Tensor maskProportion;  ///< ASA: [L] share of real cells masked
  at::Tensor squeezeWeights;  ///< SE: [L] batch-mean layer weights
  double guidanceWeight = 0.0;
};

/// Composes the pretraining objective of a run from its config: MLM on a clean pass,
/// plus alpha(t) x attention guidance on that pass's probabilities, plus ASA's adversarial
/// pass (independent dropout) with token-level KL on the selected positions, sentence-level
/// KL on the first position, and the mask penalty.
class ObjectiveComposer {
 public:
  ObjectiveComposer(const RunConfig& config, int layers, int heads, GuidanceTokens tokens);

  StepOutcome compute(MaskedLanguageModelImpl& model, const at::Tensor& inputIds,
                      const at::Tensor& attentionMask, const at::Tensor& labels,
                      std::int64_t step) const;

  bool guidance() const { return m_guidance; }
  bool asa() const { return m_asa; }
  /// Names `compute` fills in StepOutcome::scalars, for declaring the run log.
  std::vector<std::string> scalarNames() const;
  /// Per layer, the pattern of each head (empty for unguided layers).
  const std::vector<std::vector<GuidancePattern>>& headPatterns() const { return m_patterns; }

 private:
  RunConfig m_config;
  bool m_guidance;
  bool m_asa;
  std::vector<std::vector<GuidancePattern>> m_patterns;
  std::vector<GuidancePattern> m_patternsInUse;
  GuidanceTokens m_tokens;
};

/// [Delim] = <s> and </s>; [Period] = the pieces "." and "▁." when the vocabulary has them.
GuidanceTokens guidanceTokensFor(const SentencePieceTokenizer& tokenizer);

}  // namespace attnlab::core
