#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace attnlab::app {

struct ProbeCorefCommandOptions {
  std::filesystem::path run;
  std::optional<std::int64_t> step;
  std::string dataset = "synthetic";
  int size = 1000;
  std::uint64_t seed = 1;
  bool distractor = false;
  std::string argmax = "all";  ///< all | exclude-self-special
  std::filesystem::path out;   ///< default <run>/analysis/coref-step-<S>
  bool plain = false;
};

/// `attnlab-cli probe coref`: antecedent selection per head with baselines. Returns the exit
/// status.
int runProbeCoref(const ProbeCorefCommandOptions& options);

}  // namespace attnlab::app
