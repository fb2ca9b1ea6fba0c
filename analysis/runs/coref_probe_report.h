#pragma once

// What `attnlab-cli probe coref` reports, apart from how it is computed (see
// analysis_report.h).

#include "analysis/coref/antecedent_probe.h"
#include "analysis/coref/coref_example.h"
#include "analysis/coref/probe_examples.h"
#include "analysis/runs/run_selection.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis {

/// Everything `attnlab-cli probe coref` reports.
struct CorefProbeReport {
  AnalysedCheckpoint source;
  std::string dataset;                      ///< as given
  std::string datasetDescription;           ///< what and how much
  std::int64_t examples = 0;                ///< examples probed
  std::string scope;                        ///< which words the argmax ranges over
  coref::ProbeResult result;                ///< per-head accuracy, best head, mean, baselines
  std::vector<coref::SkippedData> skipped;  ///< bad data and examples too long for the model
  double seconds = 0;
  /// The first examples probed, per item and head (pick and word-level row), for a
  /// drill-down; written to coref_examples.json, not to coref.json (readCorefJson leaves it
  /// empty; readCorefExamplesJson reads it).
  coref::ProbeExamples kept;
};

}  // namespace attnlab::analysis
