#include "core/checkpoint/checkpoint_store.h"

#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/hdf5/timestamps.h"
#include "core/runtime/disk_room.h"

#include <torch/torch.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <regex>
#include <set>

namespace attnlab::core {

namespace fs = std::filesystem;
using hdf5::Dataset;
using hdf5::ElementType;
using hdf5::File;
using hdf5::Group;

namespace {

const char* const kTensors = "tensors";
const char* const kBlobs = "blobs";
const char* const kAttributes = "attributes";
const char* const kConfig = "config";
const char* const kDtypeAttribute = "torch_dtype";

struct DtypeMapping {
  c10::ScalarType torchType;
  ElementType fileType;
  const char* name;
};

// bfloat16 and bool have no HDF5 counterpart: they are stored as their bits (uint16, uint8)
// and the torch_dtype attribute restores them.
const DtypeMapping kDtypes[] = {
    {c10::kFloat, ElementType::Float32, "float32"},
    {c10::kDouble, ElementType::Float64, "float64"},
    {c10::kHalf, ElementType::Float16, "float16"},
    {c10::kBFloat16, ElementType::UInt16, "bfloat16"},
    {c10::kChar, ElementType::Int8, "int8"},
    {c10::kShort, ElementType::Int16, "int16"},
    {c10::kInt, ElementType::Int32, "int32"},
    {c10::kLong, ElementType::Int64, "int64"},
    {c10::kByte, ElementType::UInt8, "uint8"},
    {c10::kBool, ElementType::UInt8, "bool"},
};

const DtypeMapping* mappingFor(c10::ScalarType t) {
  for (const auto& m : kDtypes)
    if (m.torchType == t) return &m;
  return nullptr;
}

const DtypeMapping* mappingNamed(const std::string& name) {
  for (const auto& m : kDtypes)
    if (name == m.name) return &m;
  return nullptr;
}

const DtypeMapping* mappingForFile(ElementType t) {
  for (const auto& m : kDtypes)
    if (m.fileType == t && std::string(m.name) != "bfloat16" && std::string(m.name) != "bool")
      return &m;
  return nullptr;
}

/// Keys become HDF5 paths: '/'-separated, no empty, '.' or '..' parts, none the group of
/// another ("a" and "a/b" cannot both exist).
void checkKeys(const std::vector<std::string>& keys, const std::string& kind,
               const std::string& where) {
  for (const auto& key : keys) {
    bool bad = key.empty() || key.front() == '/' || key.back() == '/' ||
               key.find("//") != std::string::npos;
    std::size_t start = 0;
    while (!bad && start <= key.size()) {
      const std::size_t end = std::min(key.find('/', start), key.size());
      const std::string part = key.substr(start, end - start);
      bad = part == "." || part == "..";
      start = end + 1;
    }
    if (bad)
      throw CheckpointError(where, kind + " key '" + key +
                                       "' is not a valid name ('/'-separated, no empty, '.' or "
                                       "'..' parts)");
  }
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    for (std::size_t j = i + 1; j < sorted.size(); ++j) {
      if (sorted[j].compare(0, sorted[i].size(), sorted[i]) != 0) break;
      if (sorted[j].size() > sorted[i].size() && sorted[j][sorted[i].size()] == '/')
        throw CheckpointError(
            where, kind + " key '" + sorted[i] + "' is also the group of '" + sorted[j] + "'");
    }
  }
}

void collectDatasets(const Group& group, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& child : group.childNames()) {
    const std::string key = prefix.empty() ? child : prefix + "/" + child;
    if (group.isGroup(child)) {
      collectDatasets(group.openGroup(child), key, out);
    } else if (group.isDataset(child)) {
      out.push_back(key);
    }
  }
}

/// fsync of a file or folder, so the rename publishes data that is on the disk.
void syncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::optional<std::int64_t> stepFromFileName(const std::string& name) {
  static const std::regex pattern(R"(^step-(\d{1,18})\.h5$)");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  return std::stoll(m[1].str());
}

std::optional<double> valLossOf(const Group& root) {
  if (!root.hasAttribute("val_loss")) return std::nullopt;
  const double v = root.doubleAttribute("val_loss");
  if (std::isnan(v)) return std::nullopt;
  return v;
}

/// What a checkpoint's datasets may claim: the file's size, less what the datasets read
/// before claimed.
struct StoredBudget {
  fs::path path;
  std::uint64_t fileBytes = 0;
  std::uint64_t claimed = 0;
};

/// A damaged file can declare a dataset far larger than itself (a shape whose elements were
/// never written, or chunk sizes that add up to more than the file), and reading it would
/// allocate all of that before HDF5 noticed anything. AttnLab's writer stores every element,
/// without compression, so a dataset must hold the bytes its shape needs (at `elementBytes`
/// each in memory, when wider than the file's type), and all of them together fit in the file.
void requireStoredElements(const Dataset& d, StoredBudget& budget, std::size_t elementBytes = 0) {
  const std::string where = budget.path.string() + ":" + d.objectPath();
  std::uint64_t needed = std::max(d.datatype().size(), elementBytes);
  std::string shape;
  for (const std::uint64_t n : d.dims()) {
    shape += (shape.empty() ? "" : ", ") + std::to_string(n);
    if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        __builtin_mul_overflow(needed, n, &needed))
      throw CheckpointError(where, "the shape [" + shape + "...] is too large to be a tensor");
  }
  const std::uint64_t stored = d.storedBytes();
  budget.claimed += stored;
  if (needed > stored || budget.claimed > budget.fileBytes)
    throw CheckpointError(where, "the shape [" + shape + "] needs " + readableBytes(needed) +
                                     ", but the file stores " + readableBytes(stored) +
                                     " for it (the file has " + readableBytes(budget.fileBytes) +
                                     "): the checkpoint is damaged or truncated");
}

File openCheckpoint(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw CheckpointError(path.string(), "no such checkpoint file");
  File file = File::open(path.string(), hdf5::ErrorDomain::Checkpoint, File::Mode::ReadOnly);
  Group root = file.root();
  if (!root.hasAttribute("format_version") || !root.hasAttribute("step"))
    throw CheckpointError(path.string(),
                          "not an AttnLab checkpoint (no format_version or step attribute)");
  const std::int64_t version = root.intAttribute("format_version");
  if (version > kCheckpointFormatVersion)
    throw CheckpointError(path.string(), "the checkpoint has format version " +
                                             std::to_string(version) +
                                             ", but this AttnLab reads versions up to " +
                                             std::to_string(kCheckpointFormatVersion));
  return file;
}

}  // namespace

CheckpointStore::CheckpointStore(fs::path runDir, int keepLast, bool keepBest)
    : m_dir(std::move(runDir) / "checkpoints"),
      m_keepLast(std::max(1, keepLast)),
      m_keepBest(keepBest) {}

std::string CheckpointStore::fileNameForStep(std::int64_t step) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "step-%07lld.h5", static_cast<long long>(step));
  return buffer;
}

namespace {

/// Every tensor defined and of a dtype the file can hold; tensor and blob keys valid.
void checkSaveInputs(const std::map<std::string, at::Tensor>& tensors,
                     const CheckpointMetadata& metadata, const std::string& where) {
  std::vector<std::string> keys;
  for (const auto& [key, tensor] : tensors) {
    keys.push_back(key);
    if (!tensor.defined()) throw CheckpointError(where, "tensor '" + key + "' is undefined");
    if (!mappingFor(tensor.scalar_type()))
      throw CheckpointError(where, "tensor '" + key + "' has unsupported dtype " +
                                       std::string(c10::toString(tensor.scalar_type())));
  }
  checkKeys(keys, "tensor", where);
  std::vector<std::string> blobKeys;
  for (const auto& [name, blob] : metadata.blobs) blobKeys.push_back(name);
  checkKeys(blobKeys, "blob", where);
}

/// Room first: a checkpoint that cannot be finished is not started (the previous one stays
/// the newest, and nothing half-written fills what little space is left).
void requireRoom(const fs::path& tmpPath, const fs::path& dir,
                 const std::map<std::string, at::Tensor>& tensors,
                 const CheckpointMetadata& metadata, const std::string& where) {
  std::uint64_t needed = (1 << 20) + metadata.configToml.size();
  for (const auto& [key, tensor] : tensors) needed += tensor.nbytes();
  for (const auto& [name, blob] : metadata.blobs) needed += blob.size();
  if (const std::uint64_t room = roomToGrow(tmpPath); room < needed)
    throw CheckpointError(where, "the disk is full: " + readableBytes(room) + " left in " +
                                     dir.string() + ", the checkpoint needs about " +
                                     readableBytes(needed) +
                                     "; the previous checkpoint is kept (free some space, "
                                     "then resume)");
}

void writeTensors(Group& root, const std::map<std::string, at::Tensor>& tensors) {
  Group tensorGroup = root.createGroup(kTensors);
  for (const auto& [key, original] : tensors) {
    // One tensor at a time on the CPU: peak memory stays near the largest tensor.
    at::Tensor t = original.detach();
    if (!t.device().is_cpu()) t = t.to(torch::kCPU);
    t = t.contiguous();
    const DtypeMapping* m = mappingFor(t.scalar_type());
    std::vector<std::uint64_t> dims(t.sizes().begin(), t.sizes().end());
    Dataset d = tensorGroup.writeArray(key, m->fileType, t.data_ptr(), dims, true);
    d.setStringAttribute(kDtypeAttribute, m->name);
  }
}

/// The whole checkpoint file at `path`; a file left half-written by a failure is removed.
void writeCheckpointFile(const fs::path& path, std::int64_t step, std::optional<double> valLoss,
                         const std::map<std::string, at::Tensor>& tensors,
                         const CheckpointMetadata& metadata) {
  try {
    File file = File::create(path.string(), hdf5::ErrorDomain::Checkpoint, true, true);
    Group root = file.root();
    root.setIntAttribute("format_version", kCheckpointFormatVersion);
    root.setIntAttribute("step", step);
    root.setDoubleAttribute("val_loss", valLoss.value_or(std::numeric_limits<double>::quiet_NaN()));
    root.setStringAttribute("created_utc", hdf5::utcTimestamp());
    root.writeString(kConfig, metadata.configToml);
    Group attributes = root.createGroup(kAttributes);
    for (const auto& [name, value] : metadata.attributes)
      attributes.setStringAttribute(name, value);
    writeTensors(root, tensors);
    Group blobs = root.createGroup(kBlobs);
    for (const auto& [name, blob] : metadata.blobs)
      blobs.writeArray(name, ElementType::UInt8, blob.data(), {blob.size()}, true);
    file.close();
  } catch (...) {
    std::error_code ec;
    fs::remove(path, ec);
    throw;
  }
}

}  // namespace

fs::path CheckpointStore::save(std::int64_t step, std::optional<double> valLoss,
                               const std::map<std::string, at::Tensor>& tensors,
                               const CheckpointMetadata& metadata,
                               const std::function<void(const fs::path&)>& beforePublish) {
  if (step < 0) throw CheckpointError(m_dir.string(), "a checkpoint step cannot be negative");
  std::error_code ec;
  fs::create_directories(m_dir, ec);
  if (ec)
    throw CheckpointError(m_dir.string(), "cannot create the checkpoint folder: " + ec.message());
  const fs::path finalPath = m_dir / fileNameForStep(step);
  const fs::path tmpPath = fs::path(finalPath.string() + ".tmp");
  const std::string where = finalPath.string();
  checkSaveInputs(tensors, metadata, where);
  requireRoom(tmpPath, m_dir, tensors, metadata, where);
  writeCheckpointFile(tmpPath, step, valLoss, tensors, metadata);
  syncPath(tmpPath, false);
  if (beforePublish) {
    try {
      beforePublish(finalPath);
    } catch (...) {
      fs::remove(tmpPath, ec);
      throw;
    }
  }
  fs::rename(tmpPath, finalPath, ec);
  if (ec) {
    fs::remove(tmpPath, ec);
    throw CheckpointError(where,
                          "cannot rename the finished checkpoint into place: " + ec.message());
  }
  syncPath(m_dir, true);
  applyRetention();
  return finalPath;
}

CheckpointData CheckpointStore::load(const fs::path& path) {
  File file = openCheckpoint(path);
  Group root = file.root();
  CheckpointData out;
  out.path = path;
  out.formatVersion = root.intAttribute("format_version");
  out.step = root.intAttribute("step");
  out.valLoss = valLossOf(root);
  if (root.hasAttribute("created_utc")) out.createdUtc = root.stringAttribute("created_utc");
  std::error_code ec;
  StoredBudget budget{path, fs::file_size(path, ec)};
  if (root.isDataset(kConfig)) {
    Dataset config = root.openDataset(kConfig);
    requireStoredElements(config, budget);
    auto v = config.readStrings();
    if (!v.empty()) out.metadata.configToml = v.front();
  }
  if (root.isGroup(kAttributes)) {
    Group attributes = root.openGroup(kAttributes);
    for (const auto& name : attributes.attributeNames())
      out.metadata.attributes[name] = attributes.stringAttribute(name);
  }
  if (root.isGroup(kTensors)) {
    Group group = root.openGroup(kTensors);
    std::vector<std::string> keys;
    collectDatasets(group, "", keys);
    for (const auto& key : keys) {
      Dataset d = group.openDataset(key);
      const DtypeMapping* m = nullptr;
      if (d.hasAttribute(kDtypeAttribute)) m = mappingNamed(d.stringAttribute(kDtypeAttribute));
      if (!m) {
        const auto type = d.elementType();
        m = type ? mappingForFile(*type) : nullptr;
      }
      if (!m)
        throw CheckpointError(path.string() + ":" + d.objectPath(),
                              "unsupported element type for a tensor");
      requireStoredElements(d, budget, c10::elementSize(m->torchType));
      const auto dims = d.dims();
      std::vector<std::int64_t> shape(dims.begin(), dims.end());
      at::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(m->torchType));
      if (t.numel() > 0) d.read(t.data_ptr(), m->fileType);
      out.tensors.emplace(key, std::move(t));
    }
  }
  if (root.isGroup(kBlobs)) {
    Group group = root.openGroup(kBlobs);
    std::vector<std::string> keys;
    collectDatasets(group, "", keys);
    for (const auto& key : keys) {
      Dataset d = group.openDataset(key);
      requireStoredElements(d, budget);
      std::vector<std::uint8_t> bytes(d.space().elementCount());
      if (!bytes.empty()) d.read(bytes.data(), ElementType::UInt8);
      out.metadata.blobs.emplace(key, std::move(bytes));
    }
  }
  return out;
}

CheckpointInfo CheckpointStore::inspect(const fs::path& path) {
  File file = openCheckpoint(path);
  Group root = file.root();
  return CheckpointInfo{path, root.intAttribute("step"), valLossOf(root)};
}

CheckpointScan CheckpointStore::scan() const {
  CheckpointScan out;
  std::error_code ec;
  if (!fs::is_directory(m_dir, ec)) return out;
  for (const auto& entry : fs::directory_iterator(m_dir, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
      out.leftovers.push_back(entry.path());
      continue;
    }
    if (!stepFromFileName(name)) continue;
    try {
      out.checkpoints.push_back(inspect(entry.path()));
    } catch (const Error& e) {
      out.unreadable.push_back(e.what());
    }
  }
  std::sort(out.checkpoints.begin(), out.checkpoints.end(),
            [](const CheckpointInfo& a, const CheckpointInfo& b) { return a.step < b.step; });
  std::sort(out.leftovers.begin(), out.leftovers.end());
  return out;
}

std::vector<CheckpointInfo> CheckpointStore::list() const {
  return scan().checkpoints;
}

std::optional<CheckpointInfo> CheckpointStore::latest() const {
  auto all = list();
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::optional<CheckpointInfo> CheckpointStore::best() const {
  std::optional<CheckpointInfo> out;
  for (const auto& c : list()) {
    if (!c.valLoss || !std::isfinite(*c.valLoss)) continue;
    if (!out || *c.valLoss <= *out->valLoss) out = c;
  }
  return out;
}

void CheckpointStore::applyRetention() {
  const auto all = list();
  std::set<fs::path> keep;
  const std::size_t keepLast = static_cast<std::size_t>(m_keepLast);
  for (std::size_t i = all.size() > keepLast ? all.size() - keepLast : 0; i < all.size(); ++i)
    keep.insert(all[i].path);
  if (m_keepBest) {
    std::optional<CheckpointInfo> bestOne;
    for (const auto& c : all) {
      if (!c.valLoss || !std::isfinite(*c.valLoss)) continue;
      if (!bestOne || *c.valLoss <= *bestOne->valLoss) bestOne = c;
    }
    if (bestOne) keep.insert(bestOne->path);
  }
  std::string failures;
  for (const auto& c : all) {
    if (keep.count(c.path)) continue;
    std::error_code ec;
    if (!fs::remove(c.path, ec) && ec)
      failures += (failures.empty() ? "" : "; ") + c.path.string() + ": " + ec.message();
  }
  if (!failures.empty())
    throw CheckpointError(m_dir.string(),
                          "the checkpoint was saved, but retention could not delete " + failures);
}

}  // namespace attnlab::core
