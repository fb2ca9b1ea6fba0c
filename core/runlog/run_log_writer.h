#pragma once

#include "core/errors/error.h"
#include "core/runlog/run_event_kind.h"
#include "core/runlog/run_log_schema.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::core {

/// Writes one run's HDF5 log in SWMR mode, so h5py, h5dump and the GUI can read it while
/// the run goes on (layout: docs/run-log.md).
///
/// The append calls are for the engine thread and never touch the disk: they check the
/// name, stamp the wall time and queue the record under a mutex. One writer thread drains
/// the queue about once per flush period, appends each series' records in one write and
/// flushes (H5Dflush) the datasets it touched, never per value.
///
/// A failure in the writer thread (disk full, file removed) is kept: status() returns it,
/// and every later append and close() throw it as RunLogError. Rows flushed before the
/// failure stay readable.
class RunLogWriter {
 public:
  /// Creates the log at `path` (the folder must exist; an existing log is refused unless
  /// `resume`), or with `resume` reopens an existing one, checks that it declares the same
  /// scalars and series as `schema`, clears a crashed writer's "open" mark, and continues.
  /// With `resumeAfterStep`, rows with a larger step (logged after the checkpoint the run
  /// resumes from) are dropped so the curves have no duplicated tail; a negative
  /// `resumeAfterStep` starts over in an existing log (an attempt killed before its first
  /// checkpoint): every scalar, series and checkpoint row goes, and the events at step 0 stay
  /// as the record of that attempt. A new log is created when `resume` is set but no log
  /// exists yet. Throws RunLogError.
  RunLogWriter(std::string path, RunLogSchema schema, double flushSeconds = 1.0,
               bool resume = false, std::optional<std::int64_t> resumeAfterStep = std::nullopt);
  /// Drains, flushes and closes like close(), swallowing any error.
  ~RunLogWriter();

  RunLogWriter(const RunLogWriter&) = delete;
  RunLogWriter& operator=(const RunLogWriter&) = delete;

  /// Queues one value of a declared scalar. Throws RunLogError for an undeclared name or
  /// when the writer has failed.
  void appendScalar(std::string_view name, std::int64_t step, double value);
  /// Queues one row of a declared series: `data` points at seriesRowElements() floats
  /// (converted to the series' element type by the writer thread).
  void appendSeries(std::string_view name, std::int64_t step, const float* data);
  /// Same; throws RunLogError when `data` does not have exactly one row's elements.
  void appendSeries(std::string_view name, std::int64_t step, const std::vector<float>& data);
  /// Records a checkpoint file (`valLoss` empty: stored as NaN).
  void addCheckpoint(std::int64_t step, const std::string& path, std::optional<double> valLoss);
  /// Records an event: kind "stop", "non_finite_loss", "resume", ... and a message;
  /// `worldSize`: the processes training the run from this event on (start, resume,
  /// distributed), 0 for an event that does not say.
  void addEvent(std::int64_t step, const std::string& kind, const std::string& message,
                int worldSize = 0);
  /// The same for one of the engine's kinds (its name is what the file stores).
  void addEvent(std::int64_t step, RunEventKind kind, const std::string& message,
                int worldSize = 0) {
    addEvent(step, runEventKindString(kind), message, worldSize);
  }

  /// Blocks until everything queued so far is written and flushed (at a checkpoint, before
  /// handing the log to another reader, in tests). Not for the step loop. Throws the
  /// writer's failure, if any.
  void sync();
  /// Drains the queue, flushes, closes the file and joins the writer thread. Throws the
  /// writer's failure (also when it was already thrown by an append). Idempotent.
  void close();

  /// The writer thread's failure, if it had one.
  std::optional<RunLogError> status() const;
  bool isOpen() const noexcept;
  const std::string& path() const noexcept;
  const RunLogSchema& schema() const noexcept;

  /// Test hook: the writer thread fails with `reason` at its next batch, as if a write had
  /// failed, so tests can check how failures surface.
  void injectFailureForTesting(const std::string& reason);

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace attnlab::core
