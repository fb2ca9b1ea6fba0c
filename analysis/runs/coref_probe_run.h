#pragma once

#include "analysis/coref/antecedent_probe.h"
#include "analysis/coref/coref_example.h"
#include "analysis/coref/word_attention.h"

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
  /// "synthetic" (reflexives, Lin et al.'s grammar) or "conll:PATH" (CoNLL-2012 file).
  std::string dataset = "synthetic";
  int syntheticSize = 1000;
  std::uint64_t seed = 1;
  bool distractor = false;  ///< synthetic: prepend a distractor phrase (the official default)
  coref::ArgmaxScope scope = coref::ArgmaxScope::AllWords;
  int batchSize = 16;
};

/// Everything `attnlab-cli probe coref` reports.
struct CorefProbeReport {
  std::string runDir;
  std::string runName;
  std::string checkpoint;
  std::int64_t step = 0;
  std::string dataset;                      ///< as given
  std::string datasetDescription;           ///< what and how much
  std::int64_t examples = 0;                ///< examples probed
  std::string scope;                        ///< which words the argmax ranges over
  coref::ProbeResult result;                ///< per-head accuracy, best head, mean, baselines
  std::vector<coref::SkippedData> skipped;  ///< bad data and examples too long for the model
  double seconds = 0;
};

using CorefProgress = std::function<void(std::int64_t done, std::int64_t total)>;

/// Antecedent selection per head (Clark et al.): the dataset's words are encoded word by word
/// (attention converted back to words: sum over a word's pieces as keys, mean over its rows
/// as queries), run through the checkpoint's model in batches, and scored with the
/// baselines beside. Examples longer than the model are skipped and counted.
CorefProbeReport probeCoreference(const CorefProbeOptions& options,
                                  const CorefProgress& progress = {});

}  // namespace attnlab::analysis
