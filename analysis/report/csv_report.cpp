#include "analysis/report/csv_report.h"

#include "analysis/report/beyond_weights_tables.h"
#include "analysis/report/head_report_tables.h"
#include "analysis/report/report_units.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"

#include <cstdio>
#include <sstream>

namespace attnlab::analysis {

namespace {

/// Nine significant digits: every value computed in float reads back exactly.
std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

void distributionColumns(std::ostringstream& out, const DistributionSummary& d) {
  out << d.count << ',' << num(d.mean) << ',' << num(d.min) << ',' << num(d.q1) << ','
      << num(d.median) << ',' << num(d.q3) << ',' << num(d.max);
}

std::string distributionHeader(const std::string& unit) {
  return "count,mean_" + unit + ",min_" + unit + ",q1_" + unit + ",median_" + unit + ",q3_" + unit +
         ",max_" + unit;
}

std::string headLabel(int layer, int head) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "L" + std::to_string().
  std::string label = "L";
  label += std::to_string(layer);
  label += 'H';
  label += std::to_string(head);
  return label;
}

}  // namespace

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

std::string entropyTable(const AttentionStatisticsResult& s) {
  std::ostringstream entropy;
  entropy << "layer,head,rank_in_layer," << distributionHeader("nats") << ",colour\n";
  for (int l = 0; l < s.layers; ++l) {
    const auto& order = s.headOrder[static_cast<std::size_t>(l)];
    for (int rank = 0; rank < static_cast<int>(order.size()); ++rank) {
      const int h = order[static_cast<std::size_t>(rank)];
      const auto i = static_cast<std::size_t>(l * s.heads + h);
      entropy << l << ',' << h << ',' << rank << ',';
      distributionColumns(entropy, s.entropy[i]);
      entropy << ',' << colourName(s.entropyColours[i]) << '\n';
    }
  }
  return entropy.str();
}

std::string adjacentJsdTable(const AttentionStatisticsResult& s, const std::string& jsdUnit) {
  std::ostringstream adjacent;
  adjacent << "layer,layer_below,head," << distributionHeader(jsdUnit) << ",colour\n";
  for (int l = 1; l < s.layers; ++l) {
    for (int h = 0; h < s.heads; ++h) {
      const auto j = static_cast<std::size_t>((l - 1) * s.heads + h);
      adjacent << l << ',' << l - 1 << ',' << h << ',';
      distributionColumns(adjacent, s.adjacentJsd[j]);
      adjacent << ',' << colourName(s.jsdColours[j]) << '\n';
    }
  }
  return adjacent.str();
}

std::string pairwiseJsdTable(const AttentionStatisticsResult& s, const std::string& jsdUnit) {
  const int n = s.layers * s.heads;
  std::ostringstream pairwise;
  pairwise << "mean_jsd_" << jsdUnit;
  for (int k = 0; k < n; ++k) pairwise << ',' << headLabel(k / s.heads, k % s.heads);
  pairwise << '\n';
  for (int a = 0; a < n; ++a) {
    pairwise << headLabel(a / s.heads, a % s.heads);
    for (int b = 0; b < n; ++b) {
      pairwise << ',' << num(s.pairwiseJsd[static_cast<std::size_t>(a * n + b)]);
    }
    pairwise << '\n';
  }
  return pairwise.str();
}

/// head_summaries.csv and guidance_conformity.csv: one row per head each.
void addHeadTables(std::map<std::string, std::string>& tables, const AttentionStatisticsResult& s) {
  std::ostringstream summaries;
  summaries << "layer,head,to_first,to_separator,to_period,to_previous,to_next,to_self\n";
  std::ostringstream conformity;
  conformity << "layer,head";
  for (const char* p : kGuidancePatterns) conformity << ",tvd_" << p;
  for (const char* p : kGuidancePatterns) conformity << ",mse_" << p;
  conformity << '\n';
  for (int l = 0; l < s.layers; ++l) {
    for (int h = 0; h < s.heads; ++h) {
      const auto i = static_cast<std::size_t>(l * s.heads + h);
      const auto& m = s.headSummaries[i];
      summaries << l << ',' << h << ',' << num(m.first) << ',' << num(m.separator) << ','
                << num(m.period) << ',' << num(m.previous) << ',' << num(m.next) << ','
                << num(m.self) << '\n';
      conformity << l << ',' << h;
      const auto P = kGuidancePatterns.size();
      for (std::size_t p = 0; p < P; ++p) conformity << ',' << num(s.guidanceDistance[i * P + p]);
      for (std::size_t p = 0; p < P; ++p) conformity << ',' << num(s.guidanceMse[i * P + p]);
      conformity << '\n';
    }
  }
  tables["head_summaries.csv"] = summaries.str();
  tables["guidance_conformity.csv"] = conformity.str();
}

std::string variantSeriesTable(const LoggedSeries& v) {
  std::ostringstream table;
  table << "step";
  const bool perHead = v.innerShape.size() == 2;
  const auto columns = perHead ? v.innerShape[0] * v.innerShape[1] : v.innerShape[0];
  for (std::int64_t c = 0; c < columns; ++c) {
    if (perHead) {
      table << ','
            << headLabel(static_cast<int>(c / v.innerShape[1]),
                         static_cast<int>(c % v.innerShape[1]));
    } else {
      table << ",L" << c;
    }
  }
  table << '\n';
  for (std::size_t row = 0; row < v.steps.size(); ++row) {
    table << v.steps[row];
    for (std::int64_t c = 0; c < columns; ++c) {
      table << ','
            << num(v.values[row * static_cast<std::size_t>(columns) + static_cast<std::size_t>(c)]);
    }
    table << '\n';
  }
  return table.str();
}

std::string overTrainingTable(const AnalysisReport& r, const std::string& jsdUnit) {
  const auto& s = r.statistics;
  std::ostringstream training;
  training << "source,step,sequences,layer,head,median_entropy_nats,median_jsd_to_layer_below_"
           << jsdUnit << ",to_first,to_separator,to_previous,to_next,to_self\n";
  for (const auto& p : r.overTraining) {
    for (int l = 0; l < s.layers; ++l) {
      for (int h = 0; h < s.heads; ++h) {
        training << p.source << ',' << p.step << ',' << p.sequences << ',' << l << ',' << h << ','
                 << num(p.medianEntropy[static_cast<std::size_t>(l * s.heads + h)]) << ',';
        if (l > 0) {
          training << num(p.medianAdjacentJsd[static_cast<std::size_t>((l - 1) * s.heads + h)]);
        }
        const auto& m = p.headSummaries[static_cast<std::size_t>(l * s.heads + h)];
        training << ',' << num(m.first) << ',' << num(m.separator) << ',' << num(m.previous) << ','
                 << num(m.next) << ',' << num(m.self) << '\n';
      }
    }
  }
  return training.str();
}

}  // namespace

std::map<std::string, std::string> analysisCsvTables(const AnalysisReport& r) {
  const auto& s = r.statistics;
  const std::string jsdUnit = unitName(s.jsdBase);
  std::map<std::string, std::string> tables;
  tables["entropy_heads.csv"] = entropyTable(s);
  tables["jsd_adjacent_layers.csv"] = adjacentJsdTable(s, jsdUnit);
  if (s.pairwiseSequencesUsed > 0) tables["jsd_pairwise_heads.csv"] = pairwiseJsdTable(s, jsdUnit);
  addHeadTables(tables, s);
  addBeyondWeightsCsv(tables, r.beyond);
  if (r.heads) addHeadReportCsv(tables, *r.heads);
  for (const auto& v : r.variantSeries) {
    std::string name = v.name;
    for (auto& c : name) c = c == '/' ? '_' : c;
    tables["series_" + name + ".csv"] = variantSeriesTable(v);
  }
  if (!r.overTraining.empty()) tables["over_training.csv"] = overTrainingTable(r, jsdUnit);
  return tables;
}

std::map<std::string, std::string> corefCsvTables(const CorefProbeReport& r) {
  const auto& p = r.result;
  std::map<std::string, std::string> tables;
  std::ostringstream matrix;
  matrix << "accuracy";
  for (int h = 0; h < p.heads; ++h) matrix << ",head_" << h;
  matrix << '\n';
  for (int l = 0; l < p.layers; ++l) {
    matrix << "layer_" << l;
    for (int h = 0; h < p.heads; ++h) {
      matrix << ',' << num(p.accuracy[static_cast<std::size_t>(l * p.heads + h)]);
    }
    matrix << '\n';
  }
  tables["coref_accuracy.csv"] = matrix.str();

  std::ostringstream baselines;
  baselines << "name,correct,items,accuracy,description\n";
  for (const auto& b : p.baselines) {
    baselines << csvField(b.name) << ',' << b.correct << ',' << b.items << ',' << num(b.accuracy)
              << ',' << csvField(b.description) << '\n';
  }
  if (p.bestLayer >= 0) {
    baselines << "best_head_L" << p.bestLayer << "H" << p.bestHead << ','
              << p.correct[static_cast<std::size_t>(p.bestLayer * p.heads + p.bestHead)] << ','
              << p.items << ',' << num(p.bestAccuracy) << ",the best attention head\n";
    baselines << "mean_over_heads,," << p.items << ',' << num(p.meanAccuracy)
              << ",mean accuracy of all heads\n";
  }
  tables["coref_baselines.csv"] = baselines.str();

  if (!r.skipped.empty()) {
    std::ostringstream skipped;
    skipped << "where,reason\n";
    for (const auto& k : r.skipped)
      skipped << csvField(k.where) << ',' << csvField(k.reason) << '\n';
    tables["coref_skipped.csv"] = skipped.str();
  }
  return tables;
}

}  // namespace attnlab::analysis
