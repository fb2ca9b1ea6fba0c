#include "core/runlog/run_log_schema.h"

#include "core/errors/error.h"

#include <algorithm>
#include <set>

namespace attnlab::core {
namespace {

void checkName(const std::string& kind, const std::string& name) {
  const std::string where = kind + " '" + name + "'";
  if (name.empty()) throw RunLogError("run log schema", "a " + kind + " name is empty");
  if (name.front() == '/' || name.back() == '/' || name.find("//") != std::string::npos)
    throw RunLogError(where, "names are '/'-separated paths without empty parts");
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part == "." || part == "..") throw RunLogError(where, "'.' and '..' are not names");
    start = end + 1;
  }
}

void checkUniqueAndNotNested(const std::string& kind, std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    if (names[i] == names[i + 1]) throw RunLogError(kind + " '" + names[i] + "'", "declared twice");
    // Sorted order puts "a/..." right after "a" (or after "a" + chars below '/'), so check
    // every later name sharing the prefix.
    for (std::size_t j = i + 1; j < names.size(); ++j) {
      if (names[j].compare(0, names[i].size(), names[i]) != 0) break;
      if (names[j].size() > names[i].size() && names[j][names[i].size()] == '/')
        throw RunLogError(kind + " '" + names[i] + "'",
                          "is also the group of '" + names[j] + "'; a series cannot be both");
    }
  }
}

}  // namespace

std::vector<std::string> RunLogSchema::defaultScalarNames() {
  return {"train/loss", "train/learning_rate", "train/grad_norm", "train/tokens_per_second",
          "eval/loss",  "eval/accuracy"};
}

std::int64_t seriesRowElements(const TensorSeriesSpec& spec) {
  std::int64_t n = 1;
  for (auto d : spec.innerShape) n *= d;
  return n;
}

void validateRunLogSchema(const RunLogSchema& schema) {
  for (const auto& n : schema.scalarNames) checkName("scalar", n);
  checkUniqueAndNotNested("scalar", schema.scalarNames);
  std::vector<std::string> seriesNames;
  for (const auto& s : schema.series) {
    checkName("series", s.name);
    const std::string where = "series '" + s.name + "'";
    for (auto d : s.innerShape) {
      if (d <= 0) throw RunLogError(where, "every inner dimension must be positive");
    }
    using hdf5::ElementType;
    if (s.type != ElementType::Float16 && s.type != ElementType::Float32 &&
        s.type != ElementType::Float64 && s.type != ElementType::Int64)
      throw RunLogError(where, "element type " + std::string(hdf5::elementTypeName(s.type)) +
                                   " is not one of float16, float32, float64, int64");
    if (s.gzipLevel < 0 || s.gzipLevel > 9)
      throw RunLogError(where, "gzip level must be 0 (none) to 9");
    if (s.chunkRows < 0) throw RunLogError(where, "chunk rows must be 0 (automatic) or more");
    seriesNames.push_back(s.name);
  }
  checkUniqueAndNotNested("series", seriesNames);
}

}  // namespace attnlab::core
