#include "figures/run_summary.h"

#include "analysis/report/report_readers.h"
#include "core/config/config_loader.h"
#include "figures/figure_errors.h"
#include "figures/run_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace attnlab::figures {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> enabledMechanismIds(const core::RunConfig& c) {
  const auto& a = c.attention;
  std::vector<std::string> ids;
  if (a.guidance.enabled) ids.emplace_back("guidance");
  if (a.position.mode != core::PositionMode::None) ids.emplace_back("position");
  if (a.temperature) ids.emplace_back("temperature");
  if (a.conv != core::ConvAttention::None) ids.emplace_back("conv");
  if (a.residual != core::ResidualScores::None) ids.emplace_back("residual");
  if (a.asa.enabled) ids.emplace_back("asa");
  if (a.blur.target != core::BlurTarget::None) ids.emplace_back("blur");
  if (a.squeeze.enabled) ids.emplace_back("squeeze");
  return ids;
}

std::optional<double> lastValue(const RunLogInput& log, const std::string& name,
                                std::int64_t* step = nullptr) {
  if (!hasScalar(log, name)) return std::nullopt;
  const core::ScalarSeries s = log.reader.scalar(name);
  if (s.steps.empty()) return std::nullopt;
  if (step) *step = s.steps.back();
  return s.values.back();
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

template <typename T>
std::string optionalText(const std::optional<T>& v, int digits) {
  return v ? fixed(static_cast<double>(*v), digits) : std::string("-");
}

std::string joinedIds(const std::vector<std::string>& ids, const char* sep) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : sep) + id;
  return out.empty() ? std::string("baseline") : out;
}

std::size_t maxLayers(const std::vector<RunSummary>& rows) {
  std::size_t n = 0;
  for (const auto& r : rows) n = std::max(n, r.medianEntropyPerLayer.size());
  return n;
}

}  // namespace

std::string headName(int layer, int head) {
  if (layer < 0 || head < 0) return "-";
  return "L" + std::to_string(layer) + "-H" + std::to_string(head);
}

RunSummary summariseRun(const fs::path& given) {
  const RunLogInput log = openRunLog(given);
  RunSummary s;
  s.runDir = log.runDir.string();
  s.runName = log.runName.empty() ? log.runDir.filename().string() : log.runName;
  try {
    s.mechanisms = enabledMechanismIds(core::parseRunConfig(log.reader.configToml(), "run.h5"));
  } catch (const std::exception& e) {
    s.notes.push_back(std::string("configuration unreadable: ") + e.what());
  }
  std::int64_t trainStep = -1;
  s.finalTrainLoss = lastValue(log, "train/loss", &trainStep);
  s.lastStep = trainStep;
  std::int64_t evalStep = -1;
  s.finalEvalLoss = lastValue(log, "eval/loss", &evalStep);
  s.finalEvalAccuracy = lastValue(log, "eval/accuracy");
  if (s.finalEvalLoss) s.evalStep = evalStep;
  if (!s.finalEvalLoss) s.notes.push_back("no evaluation logged yet");

  try {
    const ReportLocation where = findCorefReport(log.runDir, std::nullopt);
    const analysis::CorefProbeReport probe = analysis::readCorefJson(where.file);
    s.probeStep = where.step;
    s.probeBestLayer = probe.result.bestLayer;
    s.probeBestHead = probe.result.bestHead;
    s.probeBestAccuracy = probe.result.bestAccuracy;
    s.probeMeanAccuracy = probe.result.meanAccuracy;
    s.probeDataset = probe.dataset;
  } catch (const FigureInputError&) {
    s.notes.push_back("no coreference probe: attnlab-cli probe coref " + s.runDir);
  } catch (const std::exception& e) {
    // A damaged report costs its columns, not the whole comparison.
    s.notes.push_back(std::string("coreference report unreadable: ") + e.what());
  }
  try {
    const ReportLocation where = findAnalysisReport(log.runDir, std::nullopt);
    const analysis::AnalysisReport report = analysis::readAnalysisJson(where.file);
    const auto& st = report.statistics;
    s.analysisStep = where.step;
    for (int l = 0; l < st.layers; ++l) {
      std::vector<double> medians;
      for (int h = 0; h < st.heads; ++h)
        medians.push_back(st.entropy[static_cast<std::size_t>(l * st.heads + h)].median);
      s.medianEntropyPerLayer.push_back(median(std::move(medians)));
    }
  } catch (const FigureInputError&) {
    s.notes.push_back("no analysis: attnlab-cli analyze " + s.runDir);
  } catch (const std::exception& e) {
    s.notes.push_back(std::string("analysis report unreadable: ") + e.what());
  }
  return s;
}

std::string runSummaryMarkdown(const std::vector<RunSummary>& rows) {
  std::ostringstream md;
  const std::size_t layers = maxLayers(rows);
  md << "| run | mechanisms | last step | eval loss (nats) | eval accuracy | probe best head "
        "(accuracy) | probe mean accuracy |";
  for (std::size_t l = 0; l < layers; ++l) md << " median entropy L" << l << " (nats) |";
  md << "\n|---|---|---|---|---|---|---|";
  for (std::size_t l = 0; l < layers; ++l) md << "---|";
  md << "\n";
  for (const auto& r : rows) {
    md << "| " << r.runName << " | " << joinedIds(r.mechanisms, ", ") << " | " << r.lastStep
       << " | " << optionalText(r.finalEvalLoss, 4) << " | " << optionalText(r.finalEvalAccuracy, 4)
       << " | ";
    if (r.probeStep)
      md << headName(r.probeBestLayer, r.probeBestHead) << " (" << fixed(r.probeBestAccuracy, 3)
         << ") | " << fixed(r.probeMeanAccuracy, 3) << " |";
    else
      md << "- | - |";
    for (std::size_t l = 0; l < layers; ++l)
      md << " " << (l < r.medianEntropyPerLayer.size() ? fixed(r.medianEntropyPerLayer[l], 3) : "-")
         << " |";
    md << "\n";
  }
  bool anyNote = false;
  for (const auto& r : rows) anyNote = anyNote || !r.notes.empty();
  if (anyNote) {
    md << "\nNotes:\n";
    for (const auto& r : rows)
      for (const auto& n : r.notes) md << "- " << r.runName << ": " << n << "\n";
  }
  md << "\nEval values are the last evaluation in the run log; the probe and the entropy come "
        "from the latest coref.json and analysis.json; median entropy per layer is the median "
        "over the layer's heads of each head's median row entropy.\n";
  return md.str();
}

std::string runSummaryCsv(const std::vector<RunSummary>& rows) {
  std::ostringstream csv;
  const std::size_t layers = maxLayers(rows);
  csv << "run,run_dir,mechanisms,last_step,eval_step,eval_loss_nats,eval_accuracy,probe_step,"
         "probe_best_head,probe_best_accuracy,probe_mean_accuracy,analysis_step";
  for (std::size_t l = 0; l < layers; ++l) csv << ",median_entropy_L" << l << "_nats";
  csv << "\n";
  auto opt = [](const auto& v, int digits) { return v ? fixed(double(*v), digits) : ""; };
  for (const auto& r : rows) {
    csv << '"' << r.runName << "\",\"" << r.runDir << "\"," << joinedIds(r.mechanisms, "+") << ","
        << r.lastStep << "," << (r.evalStep ? std::to_string(*r.evalStep) : "") << ","
        << opt(r.finalEvalLoss, 6) << "," << opt(r.finalEvalAccuracy, 6) << ","
        << (r.probeStep ? std::to_string(*r.probeStep) : "") << ","
        << (r.probeStep ? headName(r.probeBestLayer, r.probeBestHead) : "") << ","
        << (r.probeStep ? fixed(r.probeBestAccuracy, 6) : "") << ","
        << (r.probeStep ? fixed(r.probeMeanAccuracy, 6) : "") << ","
        << (r.analysisStep ? std::to_string(*r.analysisStep) : "");
    for (std::size_t l = 0; l < layers; ++l)
      csv << ","
          << (l < r.medianEntropyPerLayer.size() ? fixed(r.medianEntropyPerLayer[l], 6) : "");
    csv << "\n";
  }
  return csv.str();
}

}  // namespace attnlab::figures
