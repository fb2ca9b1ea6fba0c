#include "core/runlog/run_log_layout.h"

#include "core/errors/error.h"

namespace attnlab::core::runlog_layout {
namespace {

void collectLeaves(const hdf5::Group& group, const std::string& prefix,
                   std::vector<std::string>& out) {
  for (const auto& child : group.childNames()) {
    if (!group.isGroup(child)) continue;
    const std::string name = prefix.empty() ? child : prefix + "/" + child;
    hdf5::Group sub = group.openGroup(child);
    if (sub.isDataset("step")) {
      out.push_back(name);
    } else {
      collectLeaves(sub, name, out);
    }
  }
}

}  // namespace

hdf5::File openRunLogFile(const std::string& path, hdf5::File::Mode mode, bool clearStatusFlags) {
  try {
    return hdf5::File::open(path, hdf5::ErrorDomain::RunLog, mode, clearStatusFlags);
  } catch (const RunLogError& e) {
    if (std::string(e.what()).find("truncated file") == std::string::npos) throw;
    throw RunLogError(path,
                      "the run log is damaged: the file is shorter than HDF5 recorded (a "
                      "write failed part-way, as on a full disk), so it cannot be read. "
                      "Its checkpoints are intact: move run.h5 aside and the run resumes "
                      "from its last checkpoint with a new log (" +
                          e.reason() + ")");
  }
}

std::int64_t checkSchemaVersion(const hdf5::Group& root) {
  const auto& file = root.context().filePath;
  if (!root.hasAttribute("schema_version"))
    throw RunLogError(file, "not an AttnLab run log (the root has no schema_version attribute)");
  const std::int64_t version = root.intAttribute("schema_version");
  if (version > kRunLogSchemaVersion)
    throw RunLogError(file, "the run log has schema version " + std::to_string(version) +
                                ", but this AttnLab reads schema versions up to " +
                                std::to_string(kRunLogSchemaVersion) + "; update AttnLab");
  if (version < 1)
    throw RunLogError(file, "invalid run log schema version " + std::to_string(version));
  return version;
}

std::vector<std::string> leafNames(const hdf5::Group& group) {
  std::vector<std::string> out;
  collectLeaves(group, "", out);
  return out;
}

std::vector<TensorSeriesSpec> seriesInFile(const hdf5::Group& root) {
  std::vector<TensorSeriesSpec> out;
  if (!root.isGroup(kSeries)) return out;
  hdf5::Group series = root.openGroup(kSeries);
  for (const auto& name : leafNames(series)) {
    hdf5::Dataset value = series.openDataset(name + "/value");
    TensorSeriesSpec spec;
    spec.name = name;
    const auto dims = value.dims();
    for (std::size_t i = 1; i < dims.size(); ++i)
      spec.innerShape.push_back(static_cast<std::int64_t>(dims[i]));
    const auto type = value.elementType();
    if (!type)
      throw RunLogError(value.context().filePath + ":" + value.objectPath(),
                        "unsupported element type");
    spec.type = *type;
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace attnlab::core::runlog_layout
