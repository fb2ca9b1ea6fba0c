#include "analysis/report/markdown_report.h"

#include "analysis/report/beyond_weights_tables.h"
#include "analysis/report/head_report_tables.h"
#include "analysis/report/json_report.h"
#include "analysis/report/report_units.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

namespace attnlab::analysis {

namespace {

/// NaN (nothing to measure: an empty head, a pattern with no position) prints as "n/a".
std::string fixed(double v, int digits = 3) {
  if (std::isnan(v)) return "n/a";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string percent(double fraction) {
  return fixed(100.0 * fraction, 1) + "%";
}

/// Lists of skipped data stay readable: the first few, then a count.
void skippedSection(std::ostringstream& out, const std::vector<SkippedData>& skipped) {
  if (skipped.empty()) return;
  out << "\n## Skipped data (" << skipped.size() << ")\n\n";
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < std::min(kShown, skipped.size()); ++i) {
    out << "- `" << skipped[i].where << "`: " << skipped[i].reason << "\n";
  }
  if (skipped.size() > kShown) {
    out << "- ... and " << skipped.size() - kShown << " more (all listed in the JSON report)\n";
  }
}

/// The title and the first rows of a report's summary table: which run and checkpoint.
void header(std::ostringstream& out, const char* title, const AnalysedCheckpoint& source) {
  out << "# " << title << " of run `" << source.runName << "` at step " << source.step
      << "\n\n| | |\n|---|---|\n"
      << "| run | `" << source.runDir << "` |\n"
      << "| checkpoint | `" << source.checkpoint << "` (step " << source.step << ") |\n"
      << "| attention maps read as | " << source.attentionMaps << " |\n";
}

}  // namespace

namespace {

void analysisSummaryRows(std::ostringstream& out, const AnalysisReport& r,
                         const std::string& jsdUnit) {
  const auto& s = r.statistics;
  header(out, "Attention analysis", r.source);
  out << "| model | " << s.layers << " layers x " << s.heads << " heads |\n"
      << "| evaluation data | " << r.evaluationDescription << " |\n"
      << "| sequences | " << r.evaluationSequences << " (" << s.rows << " real query rows per head"
      << (s.skippedRows > 0 ? "; " + std::to_string(s.skippedRows) +
                                  " (head, row) pairs left out: no attention on real keys"
                            : std::string())
      << ") |\n"
      << "| units | entropy in nats (uniform over n keys = ln n); JSD in " << jsdUnit
      << (s.clarkSmoothing ? ", rows smoothed as Clark et al." : "") << " |\n"
      << "| took | " << fixed(r.seconds, 1) << " s |\n\n";
}

void entropySection(std::ostringstream& out, const AttentionStatisticsResult& s) {
  out << "## Entropy per head (nats)\n\n"
      << "Heads of each layer ordered by median entropy; median [quartiles] and RealFormer's "
         "colour class (red > 4.5, yellow 1.5 to 4.5, blue < 1.5).\n\n"
      << "| layer | heads, lowest median first |\n|---|---|\n";
  for (int l = 0; l < s.layers; ++l) {
    out << "| " << l << " |";
    for (const int h : s.headOrder[static_cast<std::size_t>(l)]) {
      const auto i = static_cast<std::size_t>(l * s.heads + h);
      const auto& d = s.entropy[i];
      out << " h" << h << " " << fixed(d.median, 2) << " [" << fixed(d.q1, 2) << ", "
          << fixed(d.q3, 2) << "] " << colourName(s.entropyColours[i]) << ";";
    }
    out << " |\n";
  }
}

void adjacentJsdSection(std::ostringstream& out, const AttentionStatisticsResult& s,
                        const std::string& jsdUnit) {
  if (s.layers <= 1) return;
  out << "\n## Jensen-Shannon divergence to the same head one layer below (" << jsdUnit << ")\n\n"
      << "Per token; median [quartiles] and colour class (blue < 0.25, yellow 0.25 to 0.75, "
         "red > 0.75 bits).\n\n| layers | per head |\n|---|---|\n";
  for (int l = 1; l < s.layers; ++l) {
    out << "| " << l << " vs " << l - 1 << " |";
    for (int h = 0; h < s.heads; ++h) {
      const auto j = static_cast<std::size_t>((l - 1) * s.heads + h);
      const auto& d = s.adjacentJsd[j];
      out << " h" << h << " " << fixed(d.median) << " [" << fixed(d.q1) << ", " << fixed(d.q3)
          << "] " << colourName(s.jsdColours[j]) << ";";
    }
    out << " |\n";
  }
}

/// One row of a "best head" table: the head (layer-major index) and the mean over the heads
/// with a value, or `none` when no head has one.
void bestHeadRow(std::ostringstream& out, const char* name, std::optional<std::size_t> best,
                 double bestValue, double mean, std::size_t defined, int heads,
                 const char* noneText) {
  out << "| " << name << " | ";
  if (!best) {
    out << noneText << " | | |\n";
    return;
  }
  out << "L" << *best / static_cast<std::size_t>(heads) << "H"
      << *best % static_cast<std::size_t>(heads) << " | " << fixed(bestValue) << " | "
      << fixed(mean / double(defined)) << " |\n";
}

void attentionTargetsSection(std::ostringstream& out, const AttentionStatisticsResult& s) {
  out << "\n## What the heads attend to\n\n"
      << "Mean attention mass over real query rows (Clark et al., \"What does BERT look "
         "at?\"); the head with the most of each kind.\n\n"
      << "| target | strongest head | mass | mean over heads |\n|---|---|---|---|\n";
  const std::vector<std::pair<const char*, double HeadSummary::*>> kinds = {
      {"first token", &HeadSummary::first}, {"separator", &HeadSummary::separator},
      {"period", &HeadSummary::period},     {"previous token", &HeadSummary::previous},
      {"next token", &HeadSummary::next},   {"itself", &HeadSummary::self}};
  for (const auto& [name, member] : kinds) {
    // NaN: a head with no usable row; it neither wins nor enters the mean.
    std::optional<std::size_t> best;
    double mean = 0;
    std::size_t defined = 0;
    for (std::size_t i = 0; i < s.headSummaries.size(); ++i) {
      const double v = s.headSummaries[i].*member;
      if (std::isnan(v)) continue;
      mean += v;
      ++defined;
      if (!best || v > s.headSummaries[*best].*member) best = i;
    }
    bestHeadRow(out, name, best, best ? s.headSummaries[*best].*member : 0.0, mean, defined,
                s.heads, "none");
  }
}

void guidanceSection(std::ostringstream& out, const AttentionStatisticsResult& s) {
  out << "\n## Guidance conformity\n\n"
      << "Mean total-variation distance between a head's rows and each guidance pattern "
         "(0 = follows it exactly, 1 = disjoint); the closest head per pattern.\n\n"
      << "| pattern | closest head | distance | mean over heads |\n|---|---|---|---|\n";
  const auto P = kGuidancePatterns.size();
  for (std::size_t p = 0; p < P; ++p) {
    // NaN: the pattern has no row in the data (e.g. no period token at all).
    std::optional<std::size_t> best;
    double mean = 0;
    std::size_t defined = 0;
    const auto n = s.guidanceDistance.size() / P;
    for (std::size_t i = 0; i < n; ++i) {
      const double d = s.guidanceDistance[i * P + p];
      if (std::isnan(d)) continue;
      mean += d;
      ++defined;
      if (!best || d < s.guidanceDistance[*best * P + p]) best = i;
    }
    bestHeadRow(out, kGuidancePatterns[p], best, best ? s.guidanceDistance[*best * P + p] : 0.0,
                mean, defined, s.heads, "none: the data has no such position");
  }
}

void variantSeriesSection(std::ostringstream& out, const AnalysisReport& r) {
  if (r.variantSeries.empty()) return;
  out << "\n## The variants' own quantities over training\n\n"
      << "| series | unit | steps | first step | last step | values at the last step |\n"
      << "|---|---|---|---|---|---|\n";
  for (const auto& v : r.variantSeries) {
    std::size_t width = 1;
    for (const auto d : v.innerShape) width *= static_cast<std::size_t>(d);
    out << "| `" << v.name << "` | " << v.unit << " | " << v.steps.size() << " | "
        << v.steps.front() << " | " << v.steps.back() << " |";
    const std::size_t shown = std::min<std::size_t>(width, 16);
    for (std::size_t c = 0; c < shown; ++c) {
      out << " " << fixed(v.values[(v.steps.size() - 1) * width + c]);
    }
    if (shown < width) out << " ...";
    out << " |\n";
  }
}

void overTrainingSection(std::ostringstream& out, const AnalysisReport& r) {
  if (r.overTraining.empty()) return;
  const auto& s = r.statistics;
  out << "\n## Over training\n\n"
      << "Median entropy (nats) averaged over each layer's heads, per step (\"snapshot\": "
         "the log's probe batch; \"checkpoint\": the evaluation set).\n\n| source | step |";
  for (int l = 0; l < s.layers; ++l) out << " layer " << l << " |";
  out << "\n|---|---|";
  for (int l = 0; l < s.layers; ++l) out << "---|";
  out << "\n";
  for (const auto& p : r.overTraining) {
    out << "| " << p.source << " | " << p.step << " |";
    for (int l = 0; l < s.layers; ++l) {
      double sum = 0;
      for (int h = 0; h < s.heads; ++h)
        sum += p.medianEntropy[static_cast<std::size_t>(l * s.heads + h)];
      out << " " << fixed(sum / s.heads) << " |";
    }
    out << "\n";
  }
}

void tablesFooter(std::ostringstream& out, const AttentionStatisticsResult& s) {
  out << "\nTables: `entropy_heads.csv`, `jsd_adjacent_layers.csv`, `head_summaries.csv`, "
         "`guidance_conformity.csv`"
      << (s.pairwiseSequencesUsed > 0 ? ", `jsd_pairwise_heads.csv` (mean JSD of every pair of "
                                        "heads over the first " +
                                            std::to_string(s.pairwiseSequencesUsed) + " sequences)"
                                      : std::string())
      << "; everything, with histograms and densities, in `analysis.json`.\n";
}

}  // namespace

std::string analysisMarkdown(const AnalysisReport& r) {
  const auto& s = r.statistics;
  const std::string jsdUnit = unitName(s.jsdBase);
  std::ostringstream out;
  analysisSummaryRows(out, r, jsdUnit);
  entropySection(out, s);
  adjacentJsdSection(out, s, jsdUnit);
  attentionTargetsSection(out, s);
  guidanceSection(out, s);
  out << beyondWeightsMarkdown(r.beyond);
  if (r.heads) out << headReportMarkdown(*r.heads);
  variantSeriesSection(out, r);
  overTrainingSection(out, r);
  skippedSection(out, r.skipped);
  tablesFooter(out, s);
  return out.str();
}

std::string corefMarkdown(const CorefProbeReport& r) {
  const auto& p = r.result;
  std::ostringstream out;
  header(out, "Coreference probe", r.source);
  out << "| data | " << r.datasetDescription << " |\n"
      << "| scored | " << p.items << " mentions in " << r.examples << " examples ("
      << r.skipped.size() << " skipped) |\n"
      << "| rule | antecedent selection (Clark et al.): " << corefScoringRule(r.dataset) << " |\n"
      << "| argmax over | " << r.scope << " |\n"
      << "| units | accuracy, percent of scored mentions |\n\n";

  out << "## Heads against the baselines\n\n| predictor | accuracy | correct |\n|---|---|---|\n";
  if (p.bestLayer >= 0) {
    out << "| best head L" << p.bestLayer << "H" << p.bestHead << " | " << percent(p.bestAccuracy)
        << " | " << p.correct[static_cast<std::size_t>(p.bestLayer * p.heads + p.bestHead)]
        << " |\n"
        << "| mean over heads | " << percent(p.meanAccuracy) << " | |\n";
  } else {
    out << "| heads | nothing scored | |\n";
  }
  for (const auto& b : p.baselines) {
    out << "| " << b.name << ": " << b.description << " | " << percent(b.accuracy) << " | "
        << b.correct << " |\n";
  }

  out << "\n## Accuracy per head (%)\n\n| layer |";
  for (int h = 0; h < p.heads; ++h) out << " h" << h << " |";
  out << "\n|---|";
  for (int h = 0; h < p.heads; ++h) out << "---|";
  out << "\n";
  for (int l = 0; l < p.layers; ++l) {
    out << "| " << l << " |";
    for (int h = 0; h < p.heads; ++h) {
      out << " " << fixed(100.0 * p.accuracy[static_cast<std::size_t>(l * p.heads + h)], 1) << " |";
    }
    out << "\n";
  }
  skippedSection(out, r.skipped);
  out << "\nTables: `coref_accuracy.csv` (layers x heads), `coref_baselines.csv`; everything in "
         "`coref.json`.\n";
  return out.str();
}

}  // namespace attnlab::analysis
