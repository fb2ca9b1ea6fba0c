#pragma once

#include "core/hdf5/element_type.h"
#include "core/runlog/run_event_kind.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::core {

/// One scalar series: parallel columns, all of the same length.
struct ScalarSeries {
  std::vector<std::int64_t> steps;
  std::vector<double> values;
  std::vector<double> wallTimes;  ///< seconds since the Unix epoch
};

/// One tensor series: `steps.size()` rows of `innerShape`, flattened row-major.
struct TensorSeries {
  std::vector<std::int64_t> steps;
  std::vector<double> wallTimes;
  std::vector<std::int64_t> innerShape;
  hdf5::ElementType type = hdf5::ElementType::Float32;  ///< as stored (values are float)
  std::vector<float> values;
};

/// A checkpoint the run recorded.
struct CheckpointEntry {
  std::int64_t step = 0;
  std::string path;
  std::optional<double> valLoss;  ///< empty when none was computed (NaN in the file)
  double wallTime = 0;
};

/// A run event as the file holds it: its kind's name ("start", "stopped", ...) and message.
struct RunEvent {
  std::int64_t step = 0;
  double wallTime = 0;
  std::string kind;
  std::string message;
  /// The processes training the run from this event on (start, resume, distributed); 0
  /// when the event does not say (other kinds, and logs written before the column).
  int worldSize = 0;
  /// The kind, when this version knows its name.
  std::optional<RunEventKind> knownKind() const { return runEventKindFromName(kind); }
};

/// Reads a run log, also while its writer is still appending (SWMR read; plain read for a
/// file that does not allow it). Every read returns the rows visible at the last open or
/// refresh(); rows are cut to the shortest column, so a reader never sees half a record.
/// Not thread-safe: use one reader per thread. Throws RunLogError.
class RunLogReader {
 public:
  /// Opens `path` and checks schema_version (a newer one is refused naming both versions).
  explicit RunLogReader(std::string path);
  ~RunLogReader();
  RunLogReader(RunLogReader&&) noexcept;
  RunLogReader& operator=(RunLogReader&&) noexcept;

  const std::string& path() const noexcept;
  /// True when opened for SWMR reading (the file may still be growing).
  bool isSwmr() const noexcept;
  std::int64_t schemaVersion() const noexcept;
  std::string runName() const;
  std::string attnlabVersion() const;
  std::string createdUtc() const;
  std::string configToml() const;
  std::string configJson() const;
  std::vector<std::string> tokenizerPieces() const;
  /// The snapshot probe batch: pieces as [sequences][length] (empty when the log has none).
  std::vector<std::vector<std::string>> probeTokens() const;

  /// Declared names, sorted ("eval/accuracy", "train/loss", ...).
  std::vector<std::string> scalarNames() const;
  std::vector<std::string> seriesNames() const;

  /// Rows [firstRow, end) of a scalar (all by default): a live view passes the count it
  /// already holds and reads only what is new. Throws RunLogError for an unknown name.
  ScalarSeries scalar(const std::string& name, std::uint64_t firstRow = 0) const;
  /// Rows a scalar has now (the shortest of its columns).
  std::uint64_t scalarRows(const std::string& name) const;
  /// Rows [firstRow, firstRow + maxRows) of a series (all rows by default); attention
  /// snapshots can be large, so a viewer reads the rows it shows.
  TensorSeries series(const std::string& name, std::uint64_t firstRow = 0,
                      std::uint64_t maxRows = ~std::uint64_t{0}) const;
  /// Rows a series has now.
  std::uint64_t seriesRows(const std::string& name) const;
  /// The steps of a series' rows from `firstRow` on, without reading (or decompressing)
  /// their values: the list of snapshot steps of a long run costs one small read.
  std::vector<std::int64_t> seriesSteps(const std::string& name, std::uint64_t firstRow = 0) const;
  std::vector<CheckpointEntry> checkpoints() const;
  /// Events from row `firstRow` on (all by default).
  std::vector<RunEvent> events(std::uint64_t firstRow = 0) const;

  /// Picks up rows written since opening or the last refresh (H5Drefresh of every open
  /// dataset). Harmless on a closed log.
  void refresh();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace attnlab::core
