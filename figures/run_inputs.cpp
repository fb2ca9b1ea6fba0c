#include "figures/run_inputs.h"

#include "core/pretrained/model_folder_kind.h"

#include "analysis/report/report_layout.h"
#include "figures/figure_errors.h"

#include <algorithm>
#include <map>
#include <system_error>

namespace attnlab::figures {
namespace fs = std::filesystem;

namespace {

// The log's file name inside a run folder (core/train/trainer.h's runLogPath(), which this
// torch-free library cannot include).
constexpr const char* kRunLogFile = "run.h5";

bool declared(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string joinSteps(const std::vector<std::int64_t>& steps) {
  std::string out;
  for (auto s : steps) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

ReportLocation findReport(const fs::path& run, std::optional<std::int64_t> step,
                          analysis::ReportKind kind, const std::string& what,
                          const std::string& command) {
  const fs::path dir = analysis::reportsFolder(run);
  const auto steps = analysis::reportSteps(run, kind);
  const std::string file(analysis::reportFileName(kind));
  const std::string stepOption = step ? " --step " + std::to_string(*step) : "";
  const std::string makeIt = "; run attnlab-cli " + command + " " + run.string() + stepOption;
  if (step) {
    if (std::find(steps.begin(), steps.end(), *step) == steps.end()) {
      const std::string have =
          steps.empty() ? "" : " (" + what + "s at steps " + joinSteps(steps) + ")";
      throw FigureInputError(run.string(), "no " + what + " at step " + std::to_string(*step) +
                                               " under " + dir.string() + have + makeIt);
    }
    return {analysis::reportFolder(run, kind, *step) / file, *step};
  }
  if (steps.empty()) {
    throw FigureInputError(run.string(), "no " + what + " under " + dir.string() + " (" +
                                             std::string(analysis::reportFolderPrefix(kind)) +
                                             "S/" + file + ")" + makeIt);
  }
  return {analysis::reportFolder(run, kind, steps.back()) / file, steps.back()};
}

}  // namespace

fs::path normaliseRunPath(const fs::path& run) {
  fs::path p = run.lexically_normal();
  if (p.filename().empty() && p.has_parent_path()) p = p.parent_path();  // "runs/tiny/"
  return p;
}

RunLogInput openRunLog(const fs::path& given) {
  const fs::path run = normaliseRunPath(given);
  std::error_code ec;
  if (!fs::is_directory(run, ec)) {
    throw FigureInputError(run.string(), "no such run folder");
  }
  const fs::path log = run / kRunLogFile;
  if (core::isPretrainedModelFolder(run))
    throw FigureInputError(run.string(),
                           "a pretrained model folder has no training history (no run log): "
                           "export the figures of its analysis and probe reports one at a time "
                           "with --figure; the report bundle is a run's");
  if (!fs::is_regular_file(log, ec)) {
    throw FigureInputError(run.string(), std::string("not a run folder: it has no run log (") +
                                             kRunLogFile + "); train one with attnlab-cli train");
  }
  core::RunLogReader reader(log.string());
  std::string name = reader.runName();
  if (name.empty()) name = run.filename().string();
  return {run, log, std::move(name), std::move(reader)};
}

bool hasScalar(const RunLogInput& run, const std::string& name) {
  return declared(run.reader.scalarNames(), name);
}

bool hasSeries(const RunLogInput& run, const std::string& name) {
  return declared(run.reader.seriesNames(), name);
}

core::ScalarSeries requireScalar(const RunLogInput& run, const std::string& name,
                                 const std::string& whyAbsent) {
  if (!hasScalar(run, name)) {
    throw FigureInputError(run.runDir.string(),
                           "run " + run.runName + " has no " + name + " scalar: " + whyAbsent);
  }
  core::ScalarSeries s = run.reader.scalar(name);
  if (s.steps.empty()) {
    throw FigureInputError(run.runDir.string(),
                           "run " + run.runName + " has logged no " + name + " rows yet");
  }
  return s;
}

core::TensorSeries requireLayerSeries(const RunLogInput& run, const std::string& name,
                                      const std::string& whyAbsent) {
  if (!hasSeries(run, name)) {
    throw FigureInputError(run.runDir.string(),
                           "run " + run.runName + " has no " + name + " series: " + whyAbsent);
  }
  core::TensorSeries s = run.reader.series(name);
  if (s.steps.empty()) {
    throw FigureInputError(run.runDir.string(),
                           "run " + run.runName + " has logged no " + name + " rows yet");
  }
  if (s.innerShape.size() != 1 || s.innerShape[0] < 1) {
    throw FigureInputError(
        run.logFile.string(),
        "series " + name + " is not one value per layer (shape [" + joinSteps(s.innerShape) + "])");
  }
  return s;
}

ReportLocation findAnalysisReport(const fs::path& run, std::optional<std::int64_t> step) {
  return findReport(normaliseRunPath(run), step, analysis::ReportKind::Attention, "analysis report",
                    "analyze");
}

ReportLocation findCorefReport(const fs::path& run, std::optional<std::int64_t> step) {
  return findReport(normaliseRunPath(run), step, analysis::ReportKind::Coref,
                    "coreference probe report", "probe coref");
}

bool isModelFolder(const fs::path& dir) {
  return core::isPretrainedModelFolder(dir);
}

std::vector<std::string> runLabels(const std::vector<RunLogInput>& runs) {
  std::vector<NamedRun> named;
  for (const auto& r : runs) named.push_back({r.runName, r.runDir});
  return runLabels(named);
}

std::vector<std::string> runLabels(const std::vector<NamedRun>& runs) {
  std::map<std::string, int> uses;
  for (const auto& r : runs) ++uses[r.name];
  std::vector<std::string> labels;
  for (const auto& r : runs)
    labels.push_back(uses[r.name] > 1 ? r.name + " (" + r.dir.filename().string() + ")" : r.name);
  return labels;
}

std::string stepRangeText(const std::vector<std::int64_t>& steps) {
  if (steps.empty()) return "no rows";
  const auto [lo, hi] = std::minmax_element(steps.begin(), steps.end());
  const std::string rows = std::to_string(steps.size()) + (steps.size() == 1 ? " row" : " rows");
  if (*lo == *hi) return "step " + std::to_string(*lo) + ", " + rows;
  return "steps " + std::to_string(*lo) + "-" + std::to_string(*hi) + ", " + rows;
}

}  // namespace attnlab::figures
