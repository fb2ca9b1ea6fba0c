#include "core/runlog/run_log_reader.h"

#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/runlog/run_log_layout.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnlab::core {

namespace layout = runlog_layout;
using hdf5::Dataset;
using hdf5::File;
using hdf5::Group;

struct RunLogReader::State {
  std::string path;
  File file;
  Group root;
  bool swmr = false;
  std::int64_t version = 0;
  /// Datasets stay open between reads so refresh() can update them in place.
  std::map<std::string, Dataset> datasets;

  Dataset& dataset(const std::string& objectPath) {
    auto it = datasets.find(objectPath);
    if (it != datasets.end()) return it->second;
    Dataset d = root.openDataset(objectPath);
    // A SWMR reader may hold an older copy of the object header in its cache.
    if (swmr) d.refresh();
    return datasets.emplace(objectPath, std::move(d)).first->second;
  }

  std::uint64_t rowsOf(std::initializer_list<std::string> paths) {
    std::uint64_t n = ~std::uint64_t{0};
    for (const auto& p : paths) n = std::min(n, dataset(p).rows());
    return n;
  }

  std::string leafPath(const std::string& top, const std::string& name, const char* kind) {
    const std::string group = top + "/" + name;
    if (!root.isGroup(group) || !root.isDataset(group + "/step"))
      throw RunLogError(path, std::string("the run log has no ") + kind + " '" + name + "'");
    return group;
  }
};

RunLogReader::RunLogReader(std::string path) : m_state(std::make_unique<State>()) {
  State& s = *m_state;
  s.path = std::move(path);
  try {
    s.file = File::open(s.path, hdf5::ErrorDomain::RunLog, File::Mode::SwmrRead);
    s.swmr = true;
  } catch (const RunLogError&) {
    // Not a latest-format file (or not SWMR-capable): a plain read still works for a
    // closed log, and its error is the clearer one when the file is unreadable.
    s.file = layout::openRunLogFile(s.path, File::Mode::ReadOnly);
  }
  s.root = s.file.root();
  s.version = layout::checkSchemaVersion(s.root);
}

RunLogReader::~RunLogReader() = default;
RunLogReader::RunLogReader(RunLogReader&&) noexcept = default;
RunLogReader& RunLogReader::operator=(RunLogReader&&) noexcept = default;

const std::string& RunLogReader::path() const noexcept {
  return m_state->path;
}
bool RunLogReader::isSwmr() const noexcept {
  return m_state->swmr;
}
std::int64_t RunLogReader::schemaVersion() const noexcept {
  return m_state->version;
}

namespace {
std::string optionalStringAttribute(const Group& g, const std::string& name) {
  return g.hasAttribute(name) ? g.stringAttribute(name) : std::string();
}
}  // namespace

std::string RunLogReader::runName() const {
  return optionalStringAttribute(m_state->root, "run_name");
}
std::string RunLogReader::attnlabVersion() const {
  return optionalStringAttribute(m_state->root, "attnlab_version");
}
std::string RunLogReader::createdUtc() const {
  return optionalStringAttribute(m_state->root, "created_utc");
}

std::string RunLogReader::configToml() const {
  auto v = m_state->dataset(layout::kConfig).readStrings();
  return v.empty() ? std::string() : v.front();
}

std::string RunLogReader::configJson() const {
  auto v = m_state->dataset(layout::kConfigJson).readStrings();
  return v.empty() ? std::string() : v.front();
}

std::vector<std::string> RunLogReader::tokenizerPieces() const {
  return m_state->dataset(layout::kPieces).readStrings();
}

std::vector<std::vector<std::string>> RunLogReader::probeTokens() const {
  if (!m_state->root.isDataset(layout::kProbeTokens)) return {};
  auto& dataset = m_state->dataset(layout::kProbeTokens);
  const auto flat = dataset.readStrings();
  const auto sequences = dataset.intAttribute("sequences");
  const auto length = dataset.intAttribute("length");
  std::vector<std::vector<std::string>> out;
  for (std::int64_t s = 0; s < sequences; ++s) {
    const auto begin = flat.begin() + s * length;
    if (begin + length > flat.end()) break;
    out.emplace_back(begin, begin + length);
  }
  return out;
}

std::vector<std::string> RunLogReader::scalarNames() const {
  if (!m_state->root.isGroup(layout::kScalars)) return {};
  auto names = layout::leafNames(m_state->root.openGroup(layout::kScalars));
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> RunLogReader::seriesNames() const {
  if (!m_state->root.isGroup(layout::kSeries)) return {};
  auto names = layout::leafNames(m_state->root.openGroup(layout::kSeries));
  std::sort(names.begin(), names.end());
  return names;
}

ScalarSeries RunLogReader::scalar(const std::string& name, std::uint64_t firstRow) const {
  State& s = *m_state;
  const std::string g = s.leafPath(layout::kScalars, name, "scalar");
  const std::uint64_t total = s.rowsOf({g + "/step", g + "/value", g + "/wall_time"});
  const std::uint64_t first = std::min(firstRow, total);
  const std::uint64_t n = total - first;
  ScalarSeries out;
  out.steps.resize(n);
  out.values.resize(n);
  out.wallTimes.resize(n);
  if (n == 0) return out;
  s.dataset(g + "/step").readRows(out.steps.data(), hdf5::ElementType::Int64, first, n);
  s.dataset(g + "/value").readRows(out.values.data(), hdf5::ElementType::Float64, first, n);
  s.dataset(g + "/wall_time").readRows(out.wallTimes.data(), hdf5::ElementType::Float64, first, n);
  return out;
}

std::uint64_t RunLogReader::scalarRows(const std::string& name) const {
  State& s = *m_state;
  const std::string g = s.leafPath(layout::kScalars, name, "scalar");
  return s.rowsOf({g + "/step", g + "/value", g + "/wall_time"});
}

std::vector<std::int64_t> RunLogReader::seriesSteps(const std::string& name,
                                                    std::uint64_t firstRow) const {
  State& s = *m_state;
  const std::string g = s.leafPath(layout::kSeries, name, "series");
  const std::uint64_t total = s.rowsOf({g + "/step", g + "/value", g + "/wall_time"});
  const std::uint64_t first = std::min(firstRow, total);
  std::vector<std::int64_t> steps(total - first);
  if (!steps.empty())
    s.dataset(g + "/step").readRows(steps.data(), hdf5::ElementType::Int64, first, steps.size());
  return steps;
}

std::uint64_t RunLogReader::seriesRows(const std::string& name) const {
  State& s = *m_state;
  const std::string g = s.leafPath(layout::kSeries, name, "series");
  return s.rowsOf({g + "/step", g + "/value", g + "/wall_time"});
}

TensorSeries RunLogReader::series(const std::string& name, std::uint64_t firstRow,
                                  std::uint64_t maxRows) const {
  State& s = *m_state;
  const std::string g = s.leafPath(layout::kSeries, name, "series");
  const std::uint64_t total = s.rowsOf({g + "/step", g + "/value", g + "/wall_time"});
  const std::uint64_t first = std::min(firstRow, total);
  const std::uint64_t n = std::min(maxRows, total - first);
  Dataset& value = s.dataset(g + "/value");
  TensorSeries out;
  const auto dims = value.dims();
  for (std::size_t i = 1; i < dims.size(); ++i)
    out.innerShape.push_back(static_cast<std::int64_t>(dims[i]));
  out.type = value.elementType().value_or(hdf5::ElementType::Float32);
  out.steps.resize(n);
  out.wallTimes.resize(n);
  s.dataset(g + "/step").readRows(out.steps.data(), hdf5::ElementType::Int64, first, n);
  s.dataset(g + "/wall_time").readRows(out.wallTimes.data(), hdf5::ElementType::Float64, first, n);
  out.values = value.readFloat32Rows(first, n);
  return out;
}

std::vector<CheckpointEntry> RunLogReader::checkpoints() const {
  State& s = *m_state;
  const std::string g = layout::kCheckpoints;
  const std::uint64_t n = s.rowsOf({g + "/step", g + "/path", g + "/val_loss", g + "/wall_time"});
  std::vector<std::int64_t> steps(n);
  std::vector<double> losses(n), times(n);
  s.dataset(g + "/step").readRows(steps.data(), hdf5::ElementType::Int64, 0, n);
  s.dataset(g + "/val_loss").readRows(losses.data(), hdf5::ElementType::Float64, 0, n);
  s.dataset(g + "/wall_time").readRows(times.data(), hdf5::ElementType::Float64, 0, n);
  const auto paths = s.dataset(g + "/path").readStringRows(0, n);
  std::vector<CheckpointEntry> out(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    out[i].step = steps[i];
    out[i].path = paths[i];
    if (!std::isnan(losses[i])) out[i].valLoss = losses[i];
    out[i].wallTime = times[i];
  }
  return out;
}

std::vector<RunEvent> RunLogReader::events(std::uint64_t firstRow) const {
  State& s = *m_state;
  const std::string g = layout::kEvents;
  const std::uint64_t total =
      s.rowsOf({g + "/step", g + "/wall_time", g + "/kind", g + "/message"});
  const std::uint64_t first = std::min(firstRow, total);
  const std::uint64_t n = total - first;
  if (n == 0) return {};
  std::vector<std::int64_t> steps(n);
  std::vector<double> times(n);
  s.dataset(g + "/step").readRows(steps.data(), hdf5::ElementType::Int64, first, n);
  s.dataset(g + "/wall_time").readRows(times.data(), hdf5::ElementType::Float64, first, n);
  const auto kinds = s.dataset(g + "/kind").readStringRows(first, n);
  const auto messages = s.dataset(g + "/message").readStringRows(first, n);
  // Logs written before the world-size column have none (0: not said).
  std::vector<std::int64_t> worlds(n, 0);
  const std::string worldPath = g + "/" + layout::kEventWorldSize;
  if (s.root.isDataset(worldPath) && s.dataset(worldPath).rows() >= first + n)
    s.dataset(worldPath).readRows(worlds.data(), hdf5::ElementType::Int64, first, n);
  std::vector<RunEvent> out(n);
  for (std::uint64_t i = 0; i < n; ++i)
    out[i] = {steps[i], times[i], kinds[i], messages[i], static_cast<int>(worlds[i])};
  return out;
}

void RunLogReader::refresh() {
  State& s = *m_state;
  if (!s.swmr) return;
  for (auto& [p, d] : s.datasets) d.refresh();
}

}  // namespace attnlab::core
