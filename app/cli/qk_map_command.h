#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace attnlab::app {

struct QkMapCommandOptions {
  std::filesystem::path run;  ///< run directory or checkpoint file
  int layer = 0;
  std::optional<int> head;  ///< required unless allHeads
  bool allHeads = false;    ///< every head of the layer, one map each
  std::optional<std::int64_t> step;
  std::filesystem::path text;  ///< sample this text file instead of the validation split
  int tokens = 10000;          ///< real tokens placed (each as a query and as a key)
  std::filesystem::path out;   ///< the HDF5 file (layout in docs/run-log.md)
  int batchSize = 16;
  bool plain = false;
};

/// `attnlab-cli qk-map RUN --layer L --head H --out FILE.h5`: the query-key map
/// (AttentionViz's normalisation and joint PCA) of one head, or of every head of the layer,
/// over the first tokens of the run's validation split or a text file, written as HDF5
/// (tmp + rename). Returns the exit status.
int runQkMap(const QkMapCommandOptions& options);

}  // namespace attnlab::app
