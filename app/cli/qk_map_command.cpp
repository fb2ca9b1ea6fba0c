#include "app/cli/qk_map_command.h"

#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/query_key_sample.h"
#include "analysis/runs/run_selection.h"
#include "app/cli/command_errors.h"
#include "app/cli/progress_bar.h"
#include "app/cli/task_progress.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"
#include "core/hdf5/hdf5_objects.h"
#include "core/inspect/attention_inspector.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <system_error>
#include <vector>

namespace attnlab::app {

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
void writeMap(core::hdf5::Group& g, const analysis::QueryKeyMap& m) {
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
void writePoints(core::hdf5::Group& root, const analysis::QueryKeySample& s) {
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

void writeQkMap(const analysis::QueryKeySample& s, const core::AttentionInspector& inspector,
                const std::string& evaluation, int maxTokens, const fs::path& out) {
  const fs::path tmp = core::temporaryPathFor(out);
  try {
    auto file = core::hdf5::File::create(tmp.string(), core::hdf5::ErrorDomain::RunLog, false);
    auto root = file.root();
    root.setStringAttribute("format", "attnlab-qk-map");
    root.setIntAttribute("format_version", 1);
    root.setIntAttribute("layer", s.layer);
    root.setIntAttribute("head", s.head);
    root.setIntAttribute("step", inspector.step());
    root.setStringAttribute("checkpoint", inspector.checkpoint().string());
    root.setStringAttribute("projection", "pca");
    root.setStringAttribute("evaluation", evaluation);
    root.setIntAttribute("head_dim", s.headDim);
    root.setIntAttribute("tokens", s.tokens());
    root.setIntAttribute("max_tokens", maxTokens);
    writePoints(root, s);
    if (s.head >= 0) {
      writeMap(root, s.maps.front().map);
    } else {
      for (const auto& m : s.maps) {
        auto g =
            root.createGroup("heads/" + std::to_string(m.layer) + "_" + std::to_string(m.head));
        g.setIntAttribute("layer", m.layer);
        g.setIntAttribute("head", m.head);
        writeMap(g, m.map);
      }
    }
    root.writeString("config", inspector.configToml());
    file.close();
    core::replaceFile(tmp, out);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);  // nothing half-written remains
    throw;
  }
}

void printSummary(const analysis::QueryKeySample& s, const fs::path& out) {
  const std::string heads = s.head >= 0 ? "head " + std::to_string(s.head) : "every head";
  std::printf("query-key map of layer %d, %s: %lld tokens of %zu sequences, head dim %d\n", s.layer,
              heads.c_str(), static_cast<long long>(s.tokens()), s.sentences.size(), s.headDim);
  for (const auto& m : s.maps)
    std::printf("  head %d: PCA explains %.1f%%, scale %.4g%s\n", m.head, 100.0 * m.map.explained,
                m.map.normalisation.scale,
                m.map.normalisation.normsMatched ? "" : " (mean norms not matched)");
  std::printf("wrote %s\n", out.string().c_str());
}

}  // namespace

int runQkMap(const QkMapCommandOptions& o) {
  return runReportingErrors("qk-map", [&] {
    if (!o.allHeads && !o.head)
      throw DataError("", "give --head H, or --all-heads for every head of the layer");
    const int head = o.allHeads ? -1 : *o.head;
    const auto selected = analysis::selectCheckpoint(o.run, o.step);
    core::AttentionInspector inspector(selected.checkpoint);
    analysis::checkQueryKeyRequest(inspector, o.layer, head, o.tokens);
    checkWritable(o.out);

    TaskProgress progress(stderr, !o.plain && ProgressBar::isTerminal(stderr));
    const auto tell = [&progress](const std::string& phase, std::int64_t done, std::int64_t total) {
      progress.update(phase, done, total);
    };
    analysis::EvaluationSet set(inspector, selected.runDir, {o.text, 0, o.batchSize}, tell);
    const auto sample = analysis::sampleQueryKeys(inspector, set, o.layer, head, o.tokens, tell);
    progress.finish();
    writeQkMap(sample, inspector, set.description(), o.tokens, o.out);
    printSummary(sample, o.out);
    return 0;
  });
}

}  // namespace attnlab::app
