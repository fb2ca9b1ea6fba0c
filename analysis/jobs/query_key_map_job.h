#pragma once

// The query-key map (AttentionViz) of one head, or of every head of a layer, as one job: what
// `attnlab-cli qk-map` and the app's Query-key map window both run. Pick the checkpoint, get
// its model, refuse a layer or head the model does not have before the evaluation set is
// built (that can take long), check that the file can be written, sample the queries and
// keys, and write the HDF5 file (tmp + rename; layout in docs/run-log.md) when one is named.
// The app names none: the map comes back as a value and is drawn.

#include "analysis/runs/analysis_control.h"
#include "analysis/runs/query_key_sample.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::core {
class AttentionInspector;
}

namespace attnlab::analysis {

/// Lends a job the model of a checkpoint for as long as the job holds the pointer, for its
/// use alone: the app passes its cache of loaded models (one per checkpoint, shared with the
/// Inspect tab), which may make the job wait while another job uses that model (polling
/// `cancel`). Empty: the job loads a model of its own (the command line).
using ModelLender = std::function<std::shared_ptr<core::AttentionInspector>(
    const std::filesystem::path& checkpoint, const std::atomic<bool>* cancel)>;

/// `attnlab-cli qk-map RUN --step S --layer L --head H|--all-heads --tokens N --text FILE
/// --batch-size B`.
struct QueryKeyMapJobOptions {
  std::filesystem::path run;         ///< run directory, checkpoint file or model folder
  std::optional<std::int64_t> step;  ///< empty: the latest checkpoint
  int layer = 0;
  int head = -1;               ///< -1: every head of the layer
  int maxTokens = 10000;       ///< real tokens placed (each as a query and as a key)
  std::filesystem::path text;  ///< empty: the run's validation split
  int batchSize = 16;
};

/// A map and what it was made from.
struct QueryKeyMapJobResult {
  QueryKeySample sample;
  std::filesystem::path runDir;      ///< the run's folder (as selectCheckpoint resolved it)
  std::filesystem::path checkpoint;  ///< the checkpoint file (or model folder)
  std::int64_t step = 0;
  std::string evaluation;  ///< "validation split (12 blocks of 24 tokens)"
  int maxTokens = 0;
  std::string configToml;      ///< the checkpoint's configuration
  std::filesystem::path file;  ///< the HDF5 file written; empty when none was asked for
};

/// Makes the map of `options`; writes it to `out` unless `out` is empty. Progress: loading
/// the checkpoint (0..1), building the evaluation set, then kPhaseQueryKeys in tokens.
/// Throws DataError for a layer or head outside the model or a file that cannot be written
/// (before the evaluation set), CheckpointError as selectCheckpoint, attnlab::Cancelled at
/// the next check once `*cancel` is set (a cancel during the last batch is still a cancel).
QueryKeyMapJobResult runQueryKeyMapJob(const QueryKeyMapJobOptions& options,
                                       const std::filesystem::path& out,
                                       const AnalysisProgress& progress = {},
                                       const std::atomic<bool>* cancel = nullptr,
                                       const ModelLender& lender = {});

/// Writes `result`'s map as the qk-map HDF5 file `out` (tmp + rename: nothing half-written
/// remains on failure).
void writeQueryKeyMap(const QueryKeyMapJobResult& result, const std::filesystem::path& out);

}  // namespace attnlab::analysis
