#pragma once

// What the probe keeps of single examples for a drill-down (the app's Probe tab): per item,
// every head's pick and the word-level attention row it picked from, so a head's right and
// wrong answers can be listed and each one shown without running the model again.

#include "analysis/coref/word_attention.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis::coref {

/// One scored item of a kept example. All word indices are layout words (0 = <s>, then the
/// example's words, last = </s>), the indices of KeptExample::words.
struct KeptItem {
  int queryWord = 0;              ///< the anaphor's word whose row is scored
  std::vector<int> correctWords;  ///< the words that count as right
  std::vector<int> picked;        ///< [L*H], layer-major: the word each head attends to most
  std::vector<float> rows;        ///< [L*H][W]: each head's word-level row of queryWord

  /// Whether head `h` (layer * heads + head) picked a correct word.
  bool right(int h) const;
  /// Head `h`'s row over the W words.
  const float* row(int h, int words) const {
    return rows.data() + static_cast<std::size_t>(h) * static_cast<std::size_t>(words);
  }
};

/// One kept example: its words as laid out for the model, and its items.
struct KeptExample {
  std::string source;              ///< "synthetic:17", "file.tsv:12", "file.conll:120"
  std::vector<std::string> words;  ///< layout words: "<s>", the example's words, "</s>"
  std::vector<KeptItem> items;
};

/// The examples the probe kept, in probing order.
struct ProbeExamples {
  /// Limits on what is kept: the first kMaxExamples probed examples, fewer when their rows
  /// would pass kMaxValues floats (a CoNLL window of 500 words with 40 mentions on a
  /// 12 x 12 model is about 3 million), so the file stays a few megabytes.
  static constexpr int kMaxExamples = 500;
  static constexpr std::int64_t kMaxValues = 2'000'000;

  int layers = 0;
  int heads = 0;
  ArgmaxScope scope = ArgmaxScope::AllWords;
  std::int64_t probed = 0;  ///< examples the probe scored (kept or not)
  std::vector<KeptExample> examples;

  /// Whether every probed example is kept.
  bool complete() const { return probed == static_cast<std::int64_t>(examples.size()); }
  /// Floats held in rows, over all examples.
  std::int64_t values() const;
};

/// Keeps `example` when the limits allow; returns whether it was kept. `picked` and `rows`
/// come from AntecedentProbe::record().
class ExampleKeeper {
 public:
  ExampleKeeper(int layers, int heads, ArgmaxScope scope);
  /// Whether a next example could still be kept (so the caller can skip building it).
  bool wantsMore() const {
    return !m_full && static_cast<int>(m_kept.examples.size()) < ProbeExamples::kMaxExamples;
  }
  /// Counts one probed example and keeps it when it fits. Once one does not fit, no later one
  /// is kept either, so the kept examples are always the first ones probed.
  bool offer(KeptExample example);
  /// Counts one probed example that was not offered.
  void skip() { ++m_kept.probed; }
  const ProbeExamples& kept() const { return m_kept; }
  ProbeExamples take() { return std::move(m_kept); }

 private:
  ProbeExamples m_kept;
  std::int64_t m_values = 0;
  bool m_full = false;
};

}  // namespace attnlab::analysis::coref
