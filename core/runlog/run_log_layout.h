#pragma once

// Internal to core/runlog: the paths of docs/run-log.md and what the writer (on resume) and
// the reader both need to learn from an existing file.

#include "core/hdf5/hdf5_objects.h"
#include "core/runlog/run_log_schema.h"

#include <string>
#include <vector>

namespace attnlab::core::runlog_layout {

inline const std::string kScalars = "scalars";
inline const std::string kSeries = "series";
inline const std::string kCheckpoints = "checkpoints";
inline const std::string kEvents = "events";
/// The events' world-size column (logs written before it existed lack it until resumed).
inline const std::string kEventWorldSize = "world_size";
inline const std::string kConfig = "config";
inline const std::string kConfigJson = "config_json";
inline const std::string kPieces = "tokenizer/pieces";
inline const std::string kProbeIds = "snapshots/token_ids";
inline const std::string kProbeTokens = "snapshots/tokens";

/// Reads the root's schema_version; throws RunLogError when it is missing (not a run log)
/// or newer than kRunLogSchemaVersion (naming both versions).
std::int64_t checkSchemaVersion(const hdf5::Group& root);

/// Opens a run log; a file HDF5 reports as truncated (shorter than the space it recorded,
/// which is what a write failing part-way on a full disk leaves) is reported as damaged,
/// with what to do, instead of HDF5's bare "truncated file".
hdf5::File openRunLogFile(const std::string& path, hdf5::File::Mode mode,
                          bool clearStatusFlags = false);

/// Names of the leaf groups (those holding a "step" dataset) under `group`, as '/'-paths.
std::vector<std::string> leafNames(const hdf5::Group& group);

/// The series the file declares (name, inner shape and element type; chunking and
/// compression are not compared).
std::vector<TensorSeriesSpec> seriesInFile(const hdf5::Group& root);

}  // namespace attnlab::core::runlog_layout
