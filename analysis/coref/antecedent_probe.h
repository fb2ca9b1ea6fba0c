#pragma once

#include "analysis/coref/coref_baselines.h"
#include "analysis/coref/coref_example.h"
#include "analysis/coref/probe_examples.h"
#include "analysis/coref/word_attention.h"

#include <cstdint>
#include <vector>

namespace attnlab::analysis::coref {

/// Antecedent-selection accuracy of every head, and the baselines on the same items.
struct ProbeResult {
  int layers = 0;
  int heads = 0;
  ArgmaxScope scope = ArgmaxScope::ExcludeSelfAndSpecials;
  std::int64_t examples = 0;
  std::int64_t items = 0;
  std::vector<std::int64_t> correct;  ///< [L*H], layer-major
  std::vector<double> accuracy;       ///< [L*H], correct / items (0 with no items)
  int bestLayer = -1;                 ///< first head of the highest accuracy; -1 with no items
  int bestHead = -1;
  double bestAccuracy = 0.0;
  double meanAccuracy = 0.0;  ///< over all L*H heads (the official script's "mean")
  std::vector<BaselineScore> baselines;

  double accuracyAt(int layer, int head) const {
    return accuracy[static_cast<size_t>(layer) * static_cast<size_t>(heads) +
                    static_cast<size_t>(head)];
  }
};

/// Scores, head by head, whether a coreferent mention's head word attends most to the head
/// word of one of its antecedents (Clark et al. 2019, Section 4.3; the synthetic reflexive
/// probe of run_coreference.py with ArgmaxScope::AllWords). The caller runs the model one
/// example at a time and hands over the attention; only the query rows are converted to
/// word level, so long inputs stay cheap.
class AntecedentProbe {
 public:
  AntecedentProbe(int layers, int heads, ArgmaxScope scope = ArgmaxScope::ExcludeSelfAndSpecials);

  /// Adds one example. `attention` is [L, H, T, T] row-major (rows are queries) for the
  /// input laid out as `layout`, which must describe example.words (plus the specials it
  /// says); padding beyond layout.pieces is ignored. Throws DataError (at example.source)
  /// when the layout does not fit the example or T.
  void addExample(const CorefExample& example, const WordLayout& layout, const float* attention,
                  int T);

  /// The scores so far, with the baselines on the same items.
  ProbeResult result() const;

  /// The layout word each head picks for each item of `example` ([items][L*H]), for
  /// displaying a single example; the same rule addExample scores.
  std::vector<std::vector<int>> answers(const CorefExample& example, const WordLayout& layout,
                                        const float* attention, int T) const;

  /// The example as the drill-down keeps it: its layout words, and per item the correct
  /// words, each head's pick (as answers()) and the word-level row it picked from.
  KeptExample record(const CorefExample& example, const WordLayout& layout, const float* attention,
                     int T) const;

 private:
  void check(const CorefExample& example, const WordLayout& layout, int T) const;

  int m_layers;
  int m_heads;
  ArgmaxScope m_scope;
  std::int64_t m_examples = 0;
  std::int64_t m_items = 0;
  std::vector<std::int64_t> m_correct;
  std::vector<BaselineScore> m_baselines;
};

}  // namespace attnlab::analysis::coref
