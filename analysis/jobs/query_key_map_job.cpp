#include "analysis/jobs/query_key_map_job.h"

#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/run_selection.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/inspect/attention_inspector.h"

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

namespace attnlab::analysis {

namespace {

namespace fs = std::filesystem;
using core::hdf5::ElementType;

/// A file that cannot be written fails now, not after the model ran: a probe file beside
/// it is written and removed.
void checkWritable(const fs::path& out) {
  std::error_code ec;
  const fs::path folder = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(folder, ec))
    throw DataError(out.string(),
                    "cannot write the map: the folder " + folder.string() + " does not exist");
  if (fs::is_directory(out, ec)) throw DataError(out.string(), "is a folder, not a file");
  const fs::path probe = core::temporaryPathFor(out);
  core::writeFileAtomically(probe, "");
  fs::remove(probe, ec);
}

/// Each token's value twice: once for its query, once for its key.
template <class T>
std::vector<T> twice(const std::vector<T>& v) {
  std::vector<T> out(v);
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

/// One head's picture and what the normalisation did, into `g`.
void writeMap(core::hdf5::Group& g, const QueryKeyMap& m) {
  const auto points = static_cast<std::uint64_t>(m.queries + m.keys);
  const auto dims = static_cast<std::uint64_t>(m.dims);
  const auto d = static_cast<std::uint64_t>(m.normalisation.keyShift.size());
  g.writeArray("coords", ElementType::Float64, m.coords.data(), {points, dims});
  g.writeArray("eigenvalues", ElementType::Float64, m.eigenvalues.data(), {dims});
  g.writeArray("components", ElementType::Float64, m.components.data(), {dims, d});
  g.writeArray("key_shift", ElementType::Float64, m.normalisation.keyShift.data(), {d});
  g.setDoubleAttribute("explained", m.explained);
  g.setDoubleAttribute("scale", m.normalisation.scale);
  g.setIntAttribute("norms_matched", m.normalisation.normsMatched ? 1 : 0);
}

/// Per point (queries first, then keys, the same tokens in the same order).
void writePoints(core::hdf5::Group& root, const QueryKeySample& s) {
  const auto n = static_cast<std::uint64_t>(s.tokens());
  std::vector<std::uint8_t> kind(2 * n, 0);
  std::fill(kind.begin() + static_cast<std::ptrdiff_t>(n), kind.end(), 1);
  root.writeArray("kind", ElementType::UInt8, kind.data(), {2 * n});
  const auto special = twice(s.special);
  root.writeArray("special", ElementType::UInt8, special.data(), {2 * n});
  for (const auto& [name, values] :
       {std::pair{"sequence", &s.sequence}, std::pair{"position", &s.position},
        std::pair{"token_ids", &s.tokenIds}}) {
    const auto doubled = twice(*values);
    root.writeArray(name, ElementType::Int64, doubled.data(), {2 * n});
  }
  root.writeStrings("tokens", twice(s.pieces));
  root.writeStrings("sentences", s.sentences);
}

void writeFile(const QueryKeyMapJobResult& r, core::hdf5::Group& root) {
  const QueryKeySample& s = r.sample;
  root.setStringAttribute("format", "attnlab-qk-map");
  root.setIntAttribute("format_version", 1);
  root.setIntAttribute("layer", s.layer);
  root.setIntAttribute("head", s.head);
  root.setIntAttribute("step", r.step);
  root.setStringAttribute("checkpoint", r.checkpoint.string());
  root.setStringAttribute("projection", "pca");
  root.setStringAttribute("evaluation", r.evaluation);
  root.setIntAttribute("head_dim", s.headDim);
  root.setIntAttribute("tokens", s.tokens());
  root.setIntAttribute("max_tokens", r.maxTokens);
  writePoints(root, s);
  if (s.head >= 0) {
    writeMap(root, s.maps.front().map);
  } else {
    for (const auto& m : s.maps) {
      auto g = root.createGroup("heads/" + std::to_string(m.layer) + "_" + std::to_string(m.head));
      g.setIntAttribute("layer", m.layer);
      g.setIntAttribute("head", m.head);
      writeMap(g, m.map);
    }
  }
  root.writeString("config", r.configToml);
}

/// The lender's model, or one loaded for this job (released when the job ends).
std::shared_ptr<core::AttentionInspector> modelOf(const fs::path& checkpoint,
                                                  const ModelLender& lender,
                                                  const std::atomic<bool>* cancel) {
  if (lender) return lender(checkpoint, cancel);
  return std::make_shared<core::AttentionInspector>(checkpoint);
}

}  // namespace

QueryKeyMapJobResult runQueryKeyMapJob(const QueryKeyMapJobOptions& options, const fs::path& out,
                                       const AnalysisProgress& progress,
                                       const std::atomic<bool>* cancel, const ModelLender& lender) {
  const auto tell = [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
    if (progress) progress(phase, done, total);
  };
  tell(kPhaseLoadCheckpoint, 0, 1);
  const auto selected = selectCheckpoint(options.run, options.step);
  const auto inspector = modelOf(selected.checkpoint, lender, cancel);
  // Refused by the model's shape before the evaluation set, which can take long to build.
  checkQueryKeyRequest(*inspector, options.layer, options.head, options.maxTokens);
  if (!out.empty()) checkWritable(out);
  tell(kPhaseLoadCheckpoint, 1, 1);
  throwIfCancelled(cancel, kPhaseLoadCheckpoint);
  EvaluationSet set(*inspector, selected.runDir, {options.text, 0, options.batchSize}, progress,
                    cancel);
  QueryKeyMapJobResult result;
  result.sample = sampleQueryKeys(*inspector, set, options.layer, options.head, options.maxTokens,
                                  progress, cancel);
  // A cancel during the last batch is still a cancel: the caller asked for nothing more.
  throwIfCancelled(cancel, kPhaseQueryKeys);
  result.runDir = selected.runDir;
  result.checkpoint = selected.checkpoint;
  result.step = inspector->step();
  result.evaluation = set.description();
  result.maxTokens = options.maxTokens;
  result.configToml = inspector->configToml();
  if (!out.empty()) {
    writeQueryKeyMap(result, out);
    result.file = out;
  }
  return result;
}

void writeQueryKeyMap(const QueryKeyMapJobResult& result, const fs::path& out) {
  const fs::path tmp = core::temporaryPathFor(out);
  try {
    auto file = core::hdf5::File::create(tmp.string(), core::hdf5::ErrorDomain::RunLog, false);
    auto root = file.root();
    writeFile(result, root);
    file.close();
    core::replaceFile(tmp, out);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);  // nothing half-written remains
    throw;
  }
}

}  // namespace attnlab::analysis
