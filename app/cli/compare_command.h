#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace attnlab::app {

struct CompareCommandOptions {
  std::filesystem::path runA, runB;  ///< run directories or checkpoint files
  bool heads = false;                ///< the head comparison (required: the only one so far)
  std::optional<std::int64_t> stepA, stepB;
  std::filesystem::path text;   ///< evaluate on this text file instead of run A's validation split
  std::int64_t examples = 256;  ///< sequences of the evaluation set (0 = all)
  int ckaTokens = 4096;         ///< real tokens whose hidden states enter linear CKA
  std::filesystem::path out;    ///< default <run A>/analysis/compare-step-SA-vs-<run B>-step-SB
  int batchSize = 16;
  bool plain = false;
};

/// `attnlab-cli compare RUN_A RUN_B --heads`: two checkpoints on run A's evaluation set,
/// the cross-run head JSD with the Hungarian matching per layer and linear CKA between
/// every pair of layers, as heads_comparison.json, heads_matching.csv, cka_layers.csv and
/// heads_comparison.md. Returns the exit status.
int runCompare(const CompareCommandOptions& options);

}  // namespace attnlab::app
