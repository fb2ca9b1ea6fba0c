#include "core/runlog/run_log_writer.h"

#include "core/hdf5/float16.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/hdf5/timestamps.h"
#include "core/runlog/run_log_layout.h"
#include "core/runtime/disk_room.h"
#include "core/runtime/fault_injection.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "0.0.0"
#endif

namespace attnlab::core {

namespace layout = runlog_layout;
using hdf5::Dataset;
using hdf5::ElementType;
using hdf5::File;
using hdf5::Group;

namespace {

struct ScalarRecord {
  std::size_t index;
  std::int64_t step;
  double value;
  double wallTime;
};
struct SeriesRecord {
  std::size_t index;
  std::int64_t step;
  double wallTime;
  std::vector<float> values;
};
struct CheckpointRecord {
  std::int64_t step;
  std::string path;
  double valLoss;
  double wallTime;
};
struct EventRecord {
  std::int64_t step;
  double wallTime;
  std::string kind;
  std::string message;
  std::int64_t worldSize;
};

struct Batch {
  std::vector<ScalarRecord> scalars;
  std::vector<SeriesRecord> series;
  std::vector<CheckpointRecord> checkpoints;
  std::vector<EventRecord> events;
  bool empty() const {
    return scalars.empty() && series.empty() && checkpoints.empty() && events.empty();
  }
  /// Roughly what writing the batch adds to the file (values, steps, times, strings).
  std::uint64_t bytes() const {
    std::uint64_t total = scalars.size() * 24;
    for (const auto& s : series) total += 16 + s.values.size() * sizeof(float);
    total += (checkpoints.size() + events.size()) * (kRunLogPathBytes + 64);
    return total;
  }
};

/// Room the log keeps free beyond a batch: HDF5's metadata (chunk indexes, the superblock)
/// and the close must still fit, or the file is left unreadable.
constexpr std::uint64_t kLogReserveBytes = 1 << 20;

/// The open datasets of one scalar or series.
struct Columns {
  Dataset step;
  Dataset value;
  Dataset wallTime;
};

std::string describeShape(const std::vector<std::int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

std::vector<std::uint64_t> toDims(const std::vector<std::int64_t>& shape) {
  return std::vector<std::uint64_t>(shape.begin(), shape.end());
}

/// Creates every group, dataset and attribute of a new log (before SWMR writing starts).
void createLayout(File& file, const RunLogSchema& schema) {
  Group root = file.root();
  root.setIntAttribute("schema_version", kRunLogSchemaVersion);
  root.setStringAttribute("attnlab_version", ATTNLAB_VERSION);
  root.setStringAttribute("created_utc", hdf5::utcTimestamp());
  root.setStringAttribute("run_name", schema.runName);
  root.writeString(layout::kConfig, schema.configToml);
  root.writeString(layout::kConfigJson, schema.configJson);
  root.writeStrings(layout::kPieces, schema.tokenizerPieces);
  if (schema.probeSequences > 0) {
    const std::vector<std::uint64_t> dims = {static_cast<std::uint64_t>(schema.probeSequences),
                                             static_cast<std::uint64_t>(schema.probeLength)};
    root.writeArray(layout::kProbeIds, ElementType::Int64, schema.probeIds.data(), dims);
    // Pieces flattened row-major; the shape is in the attributes (strings stay 1-D).
    auto tokens = root.writeStrings(layout::kProbeTokens, schema.probePieces);
    tokens.setIntAttribute("sequences", schema.probeSequences);
    tokens.setIntAttribute("length", schema.probeLength);
  }

  Group scalars = root.createGroup(layout::kScalars);
  for (const auto& name : schema.scalarNames) {
    Group g = scalars.createGroup(name);
    g.createExtensible("step", ElementType::Int64, {}, 1024);
    g.createExtensible("value", ElementType::Float64, {}, 1024);
    g.createExtensible("wall_time", ElementType::Float64, {}, 1024);
  }
  Group series = root.createGroup(layout::kSeries);
  for (const auto& spec : schema.series) {
    Group g = series.createGroup(spec.name);
    const auto rows = static_cast<std::uint64_t>(spec.chunkRows);
    g.createExtensible("step", ElementType::Int64, {}, 256);
    g.createExtensible("value", spec.type, toDims(spec.innerShape), rows, spec.gzipLevel);
    g.createExtensible("wall_time", ElementType::Float64, {}, 256);
  }
  Group checkpoints = root.createGroup(layout::kCheckpoints);
  checkpoints.createExtensible("step", ElementType::Int64, {}, 64);
  checkpoints.createExtensible(
      "path", hdf5::Datatype::fixedString(checkpoints.context(), kRunLogPathBytes), {}, 16);
  checkpoints.createExtensible("val_loss", ElementType::Float64, {}, 64);
  checkpoints.createExtensible("wall_time", ElementType::Float64, {}, 64);
  Group events = root.createGroup(layout::kEvents);
  events.createExtensible("step", ElementType::Int64, {}, 64);
  events.createExtensible("wall_time", ElementType::Float64, {}, 64);
  events.createExtensible(
      "kind", hdf5::Datatype::fixedString(events.context(), kRunLogEventKindBytes), {}, 64);
  events.createExtensible(
      "message", hdf5::Datatype::fixedString(events.context(), kRunLogEventMessageBytes), {}, 16);
  events.createExtensible(layout::kEventWorldSize, ElementType::Int64, {}, 64);
}

/// A log written before events had a world size gets the column on resume, 0 ("not said")
/// for its earlier rows, so every events column keeps the same length.
void addEventWorldSizeColumn(Group& root) {
  Group events = root.openGroup(layout::kEvents);
  if (events.isDataset(layout::kEventWorldSize)) return;
  const std::uint64_t rows = events.openDataset("step").rows();
  Dataset column = events.createExtensible(layout::kEventWorldSize, ElementType::Int64, {}, 64);
  const std::vector<std::int64_t> zeros(rows, 0);
  if (rows > 0) column.appendRows(zeros.data(), ElementType::Int64, rows);
}

/// On resume: the file must declare exactly the schema's scalars and series.
void checkSameSchema(const Group& root, const RunLogSchema& schema, const std::string& path) {
  std::vector<std::string> problems;
  std::vector<std::string> inFile;
  if (root.isGroup(layout::kScalars)) inFile = layout::leafNames(root.openGroup(layout::kScalars));
  const std::set<std::string> fileScalars(inFile.begin(), inFile.end());
  const std::set<std::string> declared(schema.scalarNames.begin(), schema.scalarNames.end());
  for (const auto& n : declared)
    if (!fileScalars.count(n)) problems.push_back("scalar '" + n + "' is not in the log");
  for (const auto& n : fileScalars)
    if (!declared.count(n)) problems.push_back("scalar '" + n + "' is in the log but not declared");
  std::map<std::string, TensorSeriesSpec> fileSeries;
  for (auto& s : layout::seriesInFile(root)) fileSeries[s.name] = s;
  std::set<std::string> declaredSeries;
  for (const auto& s : schema.series) {
    declaredSeries.insert(s.name);
    auto it = fileSeries.find(s.name);
    if (it == fileSeries.end()) {
      problems.push_back("series '" + s.name + "' is not in the log");
    } else if (it->second.innerShape != s.innerShape || it->second.type != s.type) {
      problems.push_back(
          "series '" + s.name + "' is " + std::string(hdf5::elementTypeName(it->second.type)) +
          describeShape(it->second.innerShape) + " in the log but " +
          std::string(hdf5::elementTypeName(s.type)) + describeShape(s.innerShape) + " here");
    }
  }
  for (const auto& [n, s] : fileSeries)
    if (!declaredSeries.count(n))
      problems.push_back("series '" + n + "' is in the log but not declared");
  if (!problems.empty()) {
    std::string reason = "cannot resume: the log's schema differs from this run's: ";
    for (std::size_t i = 0; i < problems.size(); ++i) reason += (i ? "; " : "") + problems[i];
    throw RunLogError(path, reason);
  }
}

/// On resume: every column group keeps only its rows with step <= `lastStep`, and all of a
/// group's columns get the same length (a crash may have left one longer than another).
void truncateGroup(Group& group, std::optional<std::int64_t> lastStep) {
  std::vector<Dataset> columns;
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  for (const auto& child : group.childNames()) {
    if (!group.isDataset(child)) continue;
    columns.push_back(group.openDataset(child));
    keep = std::min(keep, columns.back().rows());
  }
  if (columns.empty()) return;
  if (lastStep) {
    const auto steps = group.openDataset("step").readInt64();
    std::uint64_t n = 0;
    while (n < keep && n < steps.size() && steps[n] <= *lastStep) ++n;
    keep = n;
  }
  for (auto& c : columns)
    if (c.rows() != keep) c.resizeRows(keep);
}

void truncateAll(Group& root, std::optional<std::int64_t> lastStep) {
  for (const auto& top : {layout::kScalars, layout::kSeries}) {
    if (!root.isGroup(top)) continue;
    Group g = root.openGroup(top);
    for (const auto& name : layout::leafNames(g)) {
      Group leaf = g.openGroup(name);
      truncateGroup(leaf, lastStep);
    }
  }
  Group checkpoints = root.openGroup(layout::kCheckpoints);
  truncateGroup(checkpoints, lastStep);
  // The events are the history of the attempts: a start over (a negative step) keeps those
  // at step 0, which say how the dropped attempt began.
  Group events = root.openGroup(layout::kEvents);
  if (lastStep) lastStep = std::max<std::int64_t>(*lastStep, 0);
  truncateGroup(events, lastStep);
}

Columns openColumns(const Group& group) {
  return Columns{group.openDataset("step"), group.openDataset("value"),
                 group.openDataset("wall_time")};
}

}  // namespace

struct RunLogWriter::State {
  std::string path;
  RunLogSchema schema;
  std::chrono::duration<double> flushPeriod{1.0};
  std::unordered_map<std::string, std::size_t> scalarIndex;
  std::unordered_map<std::string, std::size_t> seriesIndex;
  std::vector<std::int64_t> seriesElements;

  // Owned by the writer thread once it runs.
  File file;
  std::vector<Columns> scalarColumns;
  std::vector<Columns> seriesColumns;
  Dataset checkpointStep, checkpointPath, checkpointValLoss, checkpointWallTime;
  Dataset eventStep, eventWallTime, eventKind, eventMessage, eventWorldSize;

  mutable std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable synced;
  Batch queue;
  bool stopping = false;
  bool closed = false;
  std::uint64_t syncRequested = 0;
  std::uint64_t syncDone = 0;
  std::optional<RunLogError> error;
  std::optional<std::string> injectedFailure;
  std::thread thread;

  void throwIfFailedLocked() const {
    if (error) throw *error;
  }
  void checkOpenLocked() const {
    throwIfFailedLocked();
    if (closed || stopping) throw RunLogError(path, "the run log is closed");
  }

  void run();
  void writeBatch(Batch& batch);
  void writeScalars(const std::vector<ScalarRecord>& records, std::set<Dataset*>& touched);
  void writeSeries(const std::vector<SeriesRecord>& records, std::set<Dataset*>& touched);
  void writeCheckpoints(const std::vector<CheckpointRecord>& records, std::set<Dataset*>& touched);
  void writeEvents(const std::vector<EventRecord>& records, std::set<Dataset*>& touched);
  void closeFile();
};

namespace {

template <class T>
void appendColumn(Dataset& d, const std::vector<T>& values, ElementType type) {
  if (!values.empty()) d.appendRows(values.data(), type, values.size());
}

/// One series' rows, flattened, as the series' element type (float16, float64 and int64
/// converted; anything else float32).
void appendSeriesValues(Dataset& d, ElementType type, const std::vector<float>& flat,
                        std::uint64_t rows) {
  switch (type) {
    case ElementType::Float16: {
      std::vector<std::uint16_t> halves(flat.size());
      hdf5::floatsToHalves(flat.data(), halves.data(), flat.size());
      d.appendRows(halves.data(), ElementType::Float16, rows);
      break;
    }
    case ElementType::Float64: {
      std::vector<double> wide(flat.begin(), flat.end());
      d.appendRows(wide.data(), ElementType::Float64, rows);
      break;
    }
    case ElementType::Int64: {
      std::vector<std::int64_t> ints(flat.size());
      std::transform(flat.begin(), flat.end(), ints.begin(),
                     [](float v) { return static_cast<std::int64_t>(std::llround(v)); });
      d.appendRows(ints.data(), ElementType::Int64, rows);
      break;
    }
    default:
      d.appendRows(flat.data(), ElementType::Float32, rows);
      break;
  }
}

}  // namespace

void RunLogWriter::State::writeBatch(Batch& batch) {
  std::set<Dataset*> touched;
  writeScalars(batch.scalars, touched);
  writeSeries(batch.series, touched);
  if (!batch.checkpoints.empty()) writeCheckpoints(batch.checkpoints, touched);
  if (!batch.events.empty()) writeEvents(batch.events, touched);
  // One flush per touched dataset per batch: what makes the rows visible to SWMR readers.
  for (Dataset* d : touched) d->flush();
}

void RunLogWriter::State::writeScalars(const std::vector<ScalarRecord>& records,
                                       std::set<Dataset*>& touched) {
  // One write per column per name, in the order the engine logged them.
  std::map<std::size_t, std::vector<const ScalarRecord*>> byScalar;
  for (const auto& r : records) byScalar[r.index].push_back(&r);
  for (const auto& [index, named] : byScalar) {
    std::vector<std::int64_t> steps;
    std::vector<double> values, times;
    for (const auto* r : named) {
      steps.push_back(r->step);
      values.push_back(r->value);
      times.push_back(r->wallTime);
    }
    Columns& c = scalarColumns[index];
    // Step last: a SWMR reader that sees n steps also finds n values.
    appendColumn(c.value, values, ElementType::Float64);
    appendColumn(c.wallTime, times, ElementType::Float64);
    appendColumn(c.step, steps, ElementType::Int64);
    touched.insert(&c.value);
    touched.insert(&c.wallTime);
    touched.insert(&c.step);
  }
}

void RunLogWriter::State::writeSeries(const std::vector<SeriesRecord>& records,
                                      std::set<Dataset*>& touched) {
  std::map<std::size_t, std::vector<const SeriesRecord*>> bySeries;
  for (const auto& r : records) bySeries[r.index].push_back(&r);
  for (const auto& [index, named] : bySeries) {
    const auto rowElements = static_cast<std::size_t>(seriesElements[index]);
    std::vector<std::int64_t> steps;
    std::vector<double> times;
    std::vector<float> flat;
    flat.reserve(rowElements * named.size());
    for (const auto* r : named) {
      steps.push_back(r->step);
      times.push_back(r->wallTime);
      flat.insert(flat.end(), r->values.begin(), r->values.end());
    }
    Columns& c = seriesColumns[index];
    appendSeriesValues(c.value, schema.series[index].type, flat,
                       static_cast<std::uint64_t>(named.size()));
    appendColumn(c.wallTime, times, ElementType::Float64);
    appendColumn(c.step, steps, ElementType::Int64);
    touched.insert(&c.value);
    touched.insert(&c.wallTime);
    touched.insert(&c.step);
  }
}

void RunLogWriter::State::writeCheckpoints(const std::vector<CheckpointRecord>& records,
                                           std::set<Dataset*>& touched) {
  std::vector<std::int64_t> steps;
  std::vector<double> losses, times;
  std::vector<std::string> paths;
  for (const auto& r : records) {
    steps.push_back(r.step);
    losses.push_back(r.valLoss);
    times.push_back(r.wallTime);
    paths.push_back(r.path);
  }
  checkpointPath.appendFixedStrings(paths);
  appendColumn(checkpointValLoss, losses, ElementType::Float64);
  appendColumn(checkpointWallTime, times, ElementType::Float64);
  appendColumn(checkpointStep, steps, ElementType::Int64);
  for (auto* d : {&checkpointPath, &checkpointValLoss, &checkpointWallTime, &checkpointStep})
    touched.insert(d);
}

void RunLogWriter::State::writeEvents(const std::vector<EventRecord>& records,
                                      std::set<Dataset*>& touched) {
  std::vector<std::int64_t> steps;
  std::vector<double> times;
  std::vector<std::int64_t> worldSizes;
  std::vector<std::string> kinds, messages;
  for (const auto& r : records) {
    steps.push_back(r.step);
    times.push_back(r.wallTime);
    kinds.push_back(r.kind);
    messages.push_back(r.message);
    worldSizes.push_back(r.worldSize);
  }
  eventKind.appendFixedStrings(kinds);
  eventMessage.appendFixedStrings(messages);
  appendColumn(eventWorldSize, worldSizes, ElementType::Int64);
  appendColumn(eventWallTime, times, ElementType::Float64);
  appendColumn(eventStep, steps, ElementType::Int64);
  for (auto* d : {&eventKind, &eventMessage, &eventWorldSize, &eventWallTime, &eventStep})
    touched.insert(d);
}

void RunLogWriter::State::closeFile() {
  scalarColumns.clear();
  seriesColumns.clear();
  for (auto* d : {&checkpointStep, &checkpointPath, &checkpointValLoss, &checkpointWallTime,
                  &eventStep, &eventWallTime, &eventKind, &eventMessage, &eventWorldSize})
    *d = Dataset();
  if (file.valid()) file.close();
}

void RunLogWriter::State::run() {
  // Exceptions never leave this thread: every failure becomes `error`.
  std::unique_lock lock(mutex);
  for (;;) {
    wake.wait_for(lock, flushPeriod,
                  [&] { return stopping || syncRequested > syncDone || injectedFailure; });
    Batch batch;
    std::swap(batch, queue);
    const bool stop = stopping;
    const std::uint64_t syncTarget = syncRequested;
    std::optional<std::string> injected = std::exchange(injectedFailure, std::nullopt);
    const bool failed = error.has_value();
    lock.unlock();
    std::optional<RunLogError> failure;
    if (!failed) {
      try {
        if (injected) throw RunLogError(path, *injected);
        if (!batch.empty()) {
          const std::uint64_t needed = 2 * batch.bytes() + kLogReserveBytes;
          const std::uint64_t room = roomToGrow(path);
          if (room < needed)
            throw RunLogError(path, "the disk is full: " + readableBytes(room) +
                                        " left where the run log grows, " + readableBytes(needed) +
                                        " needed to add the next rows safely; nothing more was "
                                        "written and the log was closed whole (free some space, "
                                        "then resume)");
          writeBatch(batch);
        }
        if (stop) closeFile();
      } catch (const RunLogError& e) {
        failure = e;
      } catch (const std::exception& e) {
        failure = RunLogError(path, std::string("run log writer failed: ") + e.what());
      }
    }
    if (stop || failure) {
      // After a failure nothing more is written; close what can be closed, quietly.
      try {
        closeFile();
      } catch (const std::exception&) {
      }
    }
    lock.lock();
    if (failure && !error) error = std::move(failure);
    syncDone = syncTarget;
    synced.notify_all();
    if (stop) return;
  }
}

RunLogWriter::RunLogWriter(std::string path, RunLogSchema schema, double flushSeconds, bool resume,
                           std::optional<std::int64_t> resumeAfterStep)
    : m_state(std::make_unique<State>()) {
  State& s = *m_state;
  s.path = std::move(path);
  s.schema = std::move(schema);
  s.flushPeriod = std::chrono::duration<double>(flushSeconds > 0 ? flushSeconds : 1.0);
  validateRunLogSchema(s.schema);
  for (std::size_t i = 0; i < s.schema.scalarNames.size(); ++i)
    s.scalarIndex[s.schema.scalarNames[i]] = i;
  for (std::size_t i = 0; i < s.schema.series.size(); ++i) {
    s.seriesIndex[s.schema.series[i].name] = i;
    s.seriesElements.push_back(seriesRowElements(s.schema.series[i]));
  }

  namespace fs = std::filesystem;
  const fs::path file(s.path);
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw RunLogError(
        s.path, "cannot create the run log: the folder " + folder.string() + " does not exist");
  const bool exists = fs::exists(file, ec);
  if (exists && !resume)
    throw RunLogError(s.path,
                      "a run log already exists here; resume the run or choose another folder");

  if (exists) {
    s.file = layout::openRunLogFile(s.path, File::Mode::ReadWrite, true);
    Group root = s.file.root();
    layout::checkSchemaVersion(root);
    checkSameSchema(root, s.schema, s.path);
    truncateAll(root, resumeAfterStep);
    addEventWorldSizeColumn(root);
    s.file.startSwmrWrite();
  } else {
    // Made under a temporary name and renamed once its layout is written: a process killed
    // while creating it leaves no half-made run.h5 that the next attempt could not open
    // (the leftover of such a kill is replaced here).
    const fs::path creating = fs::path(s.path + ".creating");
    fs::remove(creating, ec);
    s.file = File::create(creating.string(), hdf5::ErrorDomain::RunLog, true, false);
    try {
      createLayout(s.file, s.schema);
      s.file.flush();
      faultPoint(fault_point::kRunLogMade, 0);
      fs::rename(creating, file);
      s.file.startSwmrWrite();
    } catch (...) {
      // A half-made log would make the next attempt refuse "a run log already exists".
      s.file = File();
      fs::remove(creating, ec);
      fs::remove(file, ec);
      throw;
    }
  }
  // From here on nothing can be created: open the columns the writer thread appends to.
  Group root = s.file.root();
  Group scalars = root.openGroup(layout::kScalars);
  for (const auto& name : s.schema.scalarNames)
    s.scalarColumns.push_back(openColumns(scalars.openGroup(name)));
  Group series = root.openGroup(layout::kSeries);
  for (const auto& spec : s.schema.series)
    s.seriesColumns.push_back(openColumns(series.openGroup(spec.name)));
  Group checkpoints = root.openGroup(layout::kCheckpoints);
  s.checkpointStep = checkpoints.openDataset("step");
  s.checkpointPath = checkpoints.openDataset("path");
  s.checkpointValLoss = checkpoints.openDataset("val_loss");
  s.checkpointWallTime = checkpoints.openDataset("wall_time");
  Group events = root.openGroup(layout::kEvents);
  s.eventStep = events.openDataset("step");
  s.eventWallTime = events.openDataset("wall_time");
  s.eventKind = events.openDataset("kind");
  s.eventMessage = events.openDataset("message");
  s.eventWorldSize = events.openDataset(layout::kEventWorldSize);
  s.thread = std::thread([&s] { s.run(); });
}

RunLogWriter::~RunLogWriter() {
  try {
    close();
  } catch (...) {
    // Destructors never throw; status() was the place to learn about it.
  }
}

void RunLogWriter::appendScalar(std::string_view name, std::int64_t step, double value) {
  State& s = *m_state;
  auto it = s.scalarIndex.find(std::string(name));
  if (it == s.scalarIndex.end())
    throw RunLogError(s.path, "unknown scalar '" + std::string(name) +
                                  "': it was not declared in the run log schema");
  const double now = hdf5::wallTimeSeconds();
  std::lock_guard lock(s.mutex);
  s.checkOpenLocked();
  s.queue.scalars.push_back({it->second, step, value, now});
}

void RunLogWriter::appendSeries(std::string_view name, std::int64_t step, const float* data) {
  State& s = *m_state;
  auto it = s.seriesIndex.find(std::string(name));
  if (it == s.seriesIndex.end())
    throw RunLogError(s.path, "unknown series '" + std::string(name) +
                                  "': it was not declared in the run log schema");
  const auto n = static_cast<std::size_t>(s.seriesElements[it->second]);
  std::vector<float> copy(data, data + n);
  const double now = hdf5::wallTimeSeconds();
  std::lock_guard lock(s.mutex);
  s.checkOpenLocked();
  s.queue.series.push_back({it->second, step, now, std::move(copy)});
}

void RunLogWriter::appendSeries(std::string_view name, std::int64_t step,
                                const std::vector<float>& data) {
  State& s = *m_state;
  auto it = s.seriesIndex.find(std::string(name));
  if (it != s.seriesIndex.end() &&
      static_cast<std::int64_t>(data.size()) != s.seriesElements[it->second])
    throw RunLogError(s.path, "series '" + std::string(name) + "' takes " +
                                  std::to_string(s.seriesElements[it->second]) +
                                  " values per step (shape " +
                                  describeShape(s.schema.series[it->second].innerShape) +
                                  "), got " + std::to_string(data.size()));
  appendSeries(name, step, data.data());
}

void RunLogWriter::addCheckpoint(std::int64_t step, const std::string& path,
                                 std::optional<double> valLoss) {
  State& s = *m_state;
  const double now = hdf5::wallTimeSeconds();
  std::lock_guard lock(s.mutex);
  s.checkOpenLocked();
  s.queue.checkpoints.push_back(
      {step, path, valLoss.value_or(std::numeric_limits<double>::quiet_NaN()), now});
}

void RunLogWriter::addEvent(std::int64_t step, const std::string& kind, const std::string& message,
                            int worldSize) {
  State& s = *m_state;
  const double now = hdf5::wallTimeSeconds();
  std::lock_guard lock(s.mutex);
  s.checkOpenLocked();
  s.queue.events.push_back({step, now, kind, message, worldSize});
}

void RunLogWriter::sync() {
  State& s = *m_state;
  std::unique_lock lock(s.mutex);
  s.checkOpenLocked();
  const std::uint64_t target = ++s.syncRequested;
  s.wake.notify_all();
  s.synced.wait(lock, [&] { return s.syncDone >= target || s.closed; });
  s.throwIfFailedLocked();
}

void RunLogWriter::close() {
  State& s = *m_state;
  {
    std::lock_guard lock(s.mutex);
    if (!s.closed) {
      s.stopping = true;
      s.wake.notify_all();
    }
  }
  if (s.thread.joinable()) s.thread.join();
  std::lock_guard lock(s.mutex);
  s.closed = true;
  s.throwIfFailedLocked();
}

std::optional<RunLogError> RunLogWriter::status() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->error;
}

bool RunLogWriter::isOpen() const noexcept {
  std::lock_guard lock(m_state->mutex);
  return !m_state->closed && !m_state->stopping;
}

const std::string& RunLogWriter::path() const noexcept {
  return m_state->path;
}

const RunLogSchema& RunLogWriter::schema() const noexcept {
  return m_state->schema;
}

void RunLogWriter::injectFailureForTesting(const std::string& reason) {
  std::lock_guard lock(m_state->mutex);
  m_state->injectedFailure = reason;
  m_state->wake.notify_all();
}

}  // namespace attnlab::core
