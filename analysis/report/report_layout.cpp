#include "analysis/report/report_layout.h"

#include "core/pretrained/pretrained_folder.h"

#include <algorithm>
#include <string>
#include <system_error>

namespace attnlab::analysis {

namespace fs = std::filesystem;

namespace {
/// The step a folder's name gives for `kind` ("step-2000" -> 2000), if it is one of its.
std::optional<std::int64_t> folderStep(const std::string& name, ReportKind kind) {
  const std::string_view prefix = reportFolderPrefix(kind);
  if (name.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 18 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stoll(digits);
}
}  // namespace

fs::path reportsFolder(const fs::path& run) {
  // A pretrained model folder's reports are in its work folder (it may be read-only).
  return (core::isPretrainedModelFolder(run) ? core::pretrainedWorkDir(run) : run) / "analysis";
}

fs::path reportFolder(const fs::path& run, ReportKind kind, std::int64_t step) {
  return reportsFolder(run) / (std::string(reportFolderPrefix(kind)) + std::to_string(step));
}

fs::path comparisonFolder(const fs::path& runA, std::int64_t stepA, const fs::path& runB,
                          std::int64_t stepB) {
  // "runs/b/" and "." have no useful file name: the folder's own name is that of its
  // absolute normal form.
  std::error_code ec;
  fs::path b = fs::absolute(runB, ec).lexically_normal();
  if (ec) b = runB.lexically_normal();
  if (b.filename().empty()) b = b.parent_path();
  return reportsFolder(runA) / ("compare-step-" + std::to_string(stepA) + "-vs-" +
                                b.filename().string() + "-step-" + std::to_string(stepB));
}

std::string_view reportFolderPrefix(ReportKind kind) {
  switch (kind) {
    case ReportKind::Attention:
      return "step-";
    case ReportKind::Coref:
      return "coref-step-";
    case ReportKind::Health:
      return "health-step-";
  }
  return {};
}

std::string_view reportFileName(ReportKind kind) {
  switch (kind) {
    case ReportKind::Attention:
      return "analysis.json";
    case ReportKind::Coref:
      return "coref.json";
    case ReportKind::Health:
      return "health.json";
  }
  return {};
}

std::vector<ReportFile> reportFiles(const fs::path& run, ReportKind kind) {
  std::vector<ReportFile> found;
  std::error_code ec;
  const fs::path root = reportsFolder(run);
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory(ec)) continue;
    const fs::path file = entry.path() / reportFileName(kind);
    if (!fs::is_regular_file(file, ec)) continue;
    found.push_back({folderStep(entry.path().filename().string(), kind), file});
  }
  // Folders named otherwise first (by name), then the step folders by step.
  std::sort(found.begin(), found.end(), [](const ReportFile& a, const ReportFile& b) {
    if (a.step.has_value() != b.step.has_value()) return !a.step.has_value();
    if (a.step && *a.step != *b.step) return *a.step < *b.step;
    return a.file < b.file;
  });
  return found;
}

std::vector<std::int64_t> reportSteps(const fs::path& run, ReportKind kind) {
  std::vector<std::int64_t> steps;
  for (const ReportFile& r : reportFiles(run, kind))
    if (r.step) steps.push_back(*r.step);
  return steps;
}

}  // namespace attnlab::analysis
