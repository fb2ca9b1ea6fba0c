#pragma once

#include "analysis/coref/word_attention.h"
#include "analysis/runs/coref_probe_report.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::analysis {

struct CorefProbeOptions {
  std::filesystem::path run;         ///< run directory or checkpoint file
  std::optional<std::int64_t> step;  ///< latest checkpoint when empty
  /// "synthetic" (reflexives, Lin et al.'s grammar), "conll:PATH" (CoNLL-2012 file) or
  /// "lin:PATH" (one of Lin et al.'s released reflexive files, refl.0 .. refl.8).
  std::string dataset = "synthetic";
  int syntheticSize = 1000;
  std::uint64_t seed = 1;
  bool distractor = false;  ///< synthetic: prepend a distractor phrase (the official default)
  coref::ArgmaxScope scope = coref::ArgmaxScope::AllWords;
  int batchSize = 16;
};

using CorefProgress = std::function<void(std::int64_t done, std::int64_t total)>;

/// Antecedent selection per head (Clark et al.): the dataset's words are encoded word by word
/// (attention converted back to words: sum over a word's pieces as keys, mean over its rows
/// as queries), run through the checkpoint's model in batches, and scored with the
/// baselines beside. Examples longer than the model are skipped and counted. Setting
/// `*cancel` from any thread makes it throw attnlab::Cancelled at the next check (before and
/// after the checkpoint load, after the dataset is read, before every batch); it writes
/// nothing itself. The report keeps the first examples probed, with every head's pick and
/// word-level row (CorefProbeReport::kept, limits in coref::ProbeExamples) for a drill-down.
CorefProbeReport probeCoreference(const CorefProbeOptions& options,
                                  const CorefProgress& progress = {},
                                  const std::atomic<bool>* cancel = nullptr);

}  // namespace attnlab::analysis
