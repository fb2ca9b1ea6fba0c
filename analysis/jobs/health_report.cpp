// The health report's files (analysis/jobs/health_job.h): health.json (complete, for
// machines; nested arrays [layer][head][class]), health.csv (one row per head),
// health_layers.csv (one row per layer) and health.md (for people), written together.
#include "analysis/jobs/health_job.h"

#include "analysis/report/csv_report.h"
#include "analysis/report/report_files.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <system_error>
#include <utility>

namespace attnlab::analysis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// NaN (a class no sequence holds) as JSON null.
json number(double v) {
  return std::isnan(v) ? json(nullptr) : json(v);
}

/// [L, H] (or [L, C]) flat -> [[...] per layer].
json perLayer(const std::vector<double>& v, int layers, int width) {
  json out = json::array();
  for (int l = 0; l < layers; ++l) {
    json row = json::array();
    for (int i = 0; i < width; ++i) row.push_back(number(v[static_cast<size_t>(l * width + i)]));
    out.push_back(row);
  }
  return out;
}

/// Under rotary positions: the largest spectral norm over the offsets, where, and the search.
json rotaryJson(const HealthReport& r) {
  json offsets = json::array();
  for (int l = 0; l < r.layers; ++l) {
    json row = json::array();
    for (int h = 0; h < r.heads; ++h)
      row.push_back(r.rotarySpectralOffset[static_cast<size_t>(l * r.heads + h)]);
    offsets.push_back(row);
  }
  return {{"norm", perLayer(r.rotarySpectralNorm, r.layers, r.heads)},
          {"offset", offsets},
          {"reach", r.rotaryReach},
          {"theta", r.rotaryTheta}};
}

json perHeadClass(const HealthReport& r) {
  const int C = static_cast<int>(r.classes.size());
  json out = json::array();
  for (int l = 0; l < r.layers; ++l) {
    json layer = json::array();
    for (int h = 0; h < r.heads; ++h) {
      json row = json::array();
      for (int c = 0; c < C; ++c)
        row.push_back(number(r.classMass[static_cast<size_t>((l * r.heads + h) * C + c)]));
      layer.push_back(row);
    }
    out.push_back(layer);
  }
  return out;
}

json massiveJson(const HealthReport& r) {
  json out = json::array();
  for (const auto& layer : r.massive) {
    json entries = json::array();
    for (const auto& e : layer) {
      if (e.sequence < 0) continue;
      entries.push_back({{"value", e.value},
                         {"sequence", e.sequence},
                         {"position", e.position},
                         {"dimension", e.dimension},
                         {"token", e.token}});
    }
    out.push_back(entries);
  }
  return out;
}

std::string num(double v) {
  if (std::isnan(v)) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

std::string fixed(double v, int digits = 3) {
  if (std::isnan(v)) return "n/a";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

/// The largest of a layer's head values (the layer's worst head for S_max, sigma).
double layerMax(const std::vector<double>& v, int layer, int heads) {
  const auto first = v.begin() + layer * heads;
  return *std::max_element(first, first + heads);
}

double layerMean(const std::vector<double>& v, int layer, int heads) {
  double sum = 0;
  for (int h = 0; h < heads; ++h) sum += v[static_cast<size_t>(layer * heads + h)];
  return sum / heads;
}

/// Markdown table cell text: the piece quoted, with a pipe escaped.
std::string tokenCell(const std::string& token) {
  std::string out = "`";
  for (const char c : token) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out + "`";
}

void markdownLayers(std::ostringstream& md, const HealthReport& r) {
  md << "## Per layer\n\n"
     << "| layer | entropy mean (nats) | entropy min | collapsed rows | S_max | spectral norm "
        "| median \\|h\\| | top \\|h\\| (token, dim) | ratio | rank residual | mean cosine |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (int l = 0; l < r.layers; ++l) {
    const auto L = static_cast<size_t>(l);
    const auto& top = r.massive[L][0];
    md << "| " << l << " | " << fixed(layerMean(r.entropyMean, l, r.heads)) << " | "
       << fixed(*std::min_element(r.entropyMin.begin() + l * r.heads,
                                  r.entropyMin.begin() + (l + 1) * r.heads))
       << " | " << fixed(100.0 * layerMean(r.collapsedShare, l, r.heads), 1) << "% | "
       << fixed(layerMax(r.logitMax, l, r.heads), 2) << " | "
       << fixed(layerMax(r.spectralNorm, l, r.heads), 2) << " | " << fixed(r.medianAbs[L]) << " | "
       << fixed(top.value, 2) << " (" << tokenCell(top.token) << ", " << top.dimension << ") | "
       << fixed(r.massiveRatio[L], 1) << " | " << fixed(r.rankResidual[L]) << " | "
       << fixed(r.meanCosine[L]) << " |\n";
  }
  md << "\nEntropy mean and collapsed rows are the heads' mean; S_max and the spectral norm "
        "the layer's largest head; median |h| and top |h| over real tokens and every "
        "dimension of the layer's output.\n\n";
}

void markdownRotary(std::ostringstream& md, const HealthReport& r) {
  if (r.rotarySpectralNorm.empty()) return;
  md << "## Rotary positions\n\nWith RoPE the query-key form of a head depends on the "
        "offset r between key and query: A_q^T R(r) A_k / sqrt(d). The spectral norm above is "
        "its value at r = 0; here its largest over every offset the layer's queries reach "
        "(the longest sequence, "
     << r.longestSequence
     << " tokens, within a sliding window's "
        "band), for the head of the layer where it is largest.\n\n"
     << "| layer | base | offsets | head | spectral norm at r = 0 | largest over offsets | at r |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (int l = 0; l < r.layers; ++l) {
    const auto first = r.rotarySpectralNorm.begin() + l * r.heads;
    const auto h = static_cast<int>(std::max_element(first, first + r.heads) - first);
    const auto i = static_cast<size_t>(l * r.heads + h);
    const auto L = static_cast<size_t>(l);
    md << "| " << l << " | " << r.rotaryTheta[L] << " | +-" << r.rotaryReach[L] << " | " << h
       << " | " << fixed(r.spectralNorm[i], 2) << " | " << fixed(r.rotarySpectralNorm[i], 2)
       << " | " << r.rotarySpectralOffset[i] << " |\n";
  }
  md << "\n";
}

void markdownHeads(std::ostringstream& md, const HealthReport& r) {
  md << "## Per head\n\n| head | entropy mean | entropy min | collapsed | S_max | spectral norm "
        "| top key mass | top key class |";
  for (const auto& c : r.classes) md << " mass " << c << " |";
  md << "\n|---|---|---|---|---|---|---|---|";
  for (size_t c = 0; c < r.classes.size(); ++c) md << "---|";
  md << "\n";
  const auto C = r.classes.size();
  for (int l = 0; l < r.layers; ++l) {
    for (int h = 0; h < r.heads; ++h) {
      const auto i = static_cast<size_t>(l * r.heads + h);
      md << "| L" << l << "H" << h << " | " << fixed(r.entropyMean[i]) << " | "
         << fixed(r.entropyMin[i]) << " | " << fixed(100.0 * r.collapsedShare[i], 1) << "% | "
         << fixed(r.logitMax[i], 2) << " | " << fixed(r.spectralNorm[i], 2) << " | "
         << fixed(r.topKeyMass[i]) << " | " << r.classes[static_cast<size_t>(r.topKeyClass[i])]
         << " |";
      for (size_t c = 0; c < C; ++c) md << " " << fixed(r.classMass[i * C + c]) << " |";
      md << "\n";
    }
  }
}

}  // namespace

std::string healthJson(const HealthReport& r) {
  json skipped = json::array();
  for (const auto& k : r.skipped) skipped.push_back({{"where", k.where}, {"reason", k.reason}});
  json topClass = json::array();
  for (int l = 0; l < r.layers; ++l) {
    json row = json::array();
    for (int h = 0; h < r.heads; ++h)
      row.push_back(
          r.classes[static_cast<size_t>(r.topKeyClass[static_cast<size_t>(l * r.heads + h)])]);
    topClass.push_back(row);
  }
  const int C = static_cast<int>(r.classes.size());
  json j = {{"format", "attnlab-health"},
            {"format_version", 1},
            {"run",
             {{"directory", r.source.runDir},
              {"name", r.source.runName},
              {"checkpoint", r.source.checkpoint},
              {"step", r.source.step},
              {"attention_maps", r.source.attentionMaps}}},
            {"available_steps", r.availableSteps},
            {"evaluation",
             {{"kind", r.evaluationKind},
              {"description", r.evaluationDescription},
              {"sequences", r.sequences},
              {"rows", r.rows},
              {"longest_sequence", r.longestSequence},
              {"skipped", skipped}}},
            {"settings",
             {{"sink_epsilon", r.sinkEpsilon},
              {"collapse_nats", r.collapseNats},
              {"spectral_iterations", r.spectralIterations}}},
            {"layers", r.layers},
            {"heads", r.heads},
            {"classes", r.classes}};
  j["class_mass"] = perHeadClass(r);
  j["sink_rate"] = perLayer(r.sinkRate, 1, C)[0];
  j["sink_rate_by_layer"] = perLayer(r.sinkRateByLayer, r.layers, C);
  j["top_key_mass"] = perLayer(r.topKeyMass, r.layers, r.heads);
  j["top_key_class"] = topClass;
  j["entropy_mean"] = perLayer(r.entropyMean, r.layers, r.heads);
  j["entropy_min"] = perLayer(r.entropyMin, r.layers, r.heads);
  j["collapsed_share"] = perLayer(r.collapsedShare, r.layers, r.heads);
  j["logit_max"] = perLayer(r.logitMax, r.layers, r.heads);
  j["spectral_norm"] = perLayer(r.spectralNorm, r.layers, r.heads);
  if (!r.rotarySpectralNorm.empty()) j["spectral_norm_rotary"] = rotaryJson(r);
  j["massive"] = massiveJson(r);
  j["median_abs"] = r.medianAbs;
  j["massive_ratio"] = r.massiveRatio;
  j["rank_residual"] = r.rankResidual;
  j["mean_cosine"] = r.meanCosine;
  j["seconds"] = r.seconds;
  j["config"] = r.configToml;
  return j.dump(2) + "\n";
}

std::string healthCsv(const HealthReport& r) {
  std::ostringstream out;
  out << "layer,head,entropy_mean_nats,entropy_min_nats,collapsed_share,logit_max,spectral_norm,"
         "top_key_mass,top_key_class";
  for (const auto& c : r.classes) out << ",mass_" << c;
  const bool rotary = !r.rotarySpectralNorm.empty();
  if (rotary) out << ",spectral_norm_rotary,spectral_norm_rotary_offset";
  out << "\n";
  const auto C = r.classes.size();
  for (int l = 0; l < r.layers; ++l) {
    for (int h = 0; h < r.heads; ++h) {
      const auto i = static_cast<size_t>(l * r.heads + h);
      out << l << ',' << h << ',' << num(r.entropyMean[i]) << ',' << num(r.entropyMin[i]) << ','
          << num(r.collapsedShare[i]) << ',' << num(r.logitMax[i]) << ',' << num(r.spectralNorm[i])
          << ',' << num(r.topKeyMass[i]) << ',' << r.classes[static_cast<size_t>(r.topKeyClass[i])];
      for (size_t c = 0; c < C; ++c) out << ',' << num(r.classMass[i * C + c]);
      if (rotary) out << ',' << num(r.rotarySpectralNorm[i]) << ',' << r.rotarySpectralOffset[i];
      out << "\n";
    }
  }
  return out.str();
}

std::string healthLayersCsv(const HealthReport& r) {
  std::ostringstream out;
  out << "layer,median_abs,massive_ratio,rank_residual,mean_cosine";
  for (int k = 1; k <= 3; ++k)
    out << ",massive_" << k << "_value,massive_" << k << "_sequence,massive_" << k
        << "_position,massive_" << k << "_dimension,massive_" << k << "_token";
  for (const auto& c : r.classes) out << ",sink_rate_" << c;
  out << "\n";
  const auto C = r.classes.size();
  for (int l = 0; l < r.layers; ++l) {
    const auto L = static_cast<size_t>(l);
    out << l << ',' << num(r.medianAbs[L]) << ',' << num(r.massiveRatio[L]) << ','
        << num(r.rankResidual[L]) << ',' << num(r.meanCosine[L]);
    for (const auto& e : r.massive[L]) {
      if (e.sequence < 0) {
        out << ",,,,,";
        continue;
      }
      out << ',' << num(e.value) << ',' << e.sequence << ',' << e.position << ',' << e.dimension
          << ',' << csvField(e.token);
    }
    for (size_t c = 0; c < C; ++c) out << ',' << num(r.sinkRateByLayer[L * C + c]);
    out << "\n";
  }
  return out.str();
}

std::string healthMarkdown(const HealthReport& r) {
  std::ostringstream md;
  md << "# Attention health: " << r.source.runName << " at step " << r.source.step << "\n\n"
     << "- run: `" << r.source.runDir << "`\n- checkpoint: `" << r.source.checkpoint << "`\n"
     << "- evaluation: " << r.evaluationDescription << " (" << r.sequences << " sequences, "
     << r.rows << " real query rows per head)\n"
     << "- settings: sink epsilon " << r.sinkEpsilon << ", collapsed below " << r.collapseNats
     << " nats, spectral norm by " << r.spectralIterations << " power iterations\n"
     << "- model: " << r.layers << " layers x " << r.heads << " heads\n"
     << "- attention maps read as: " << r.source.attentionMaps << "\n\n";
  if (!r.skipped.empty())
    md << "Skipped " << r.skipped.size() << " lines of the text (in health.json).\n\n";
  md << "## Sinks\n\nShare of heads whose mean mass on a class's keys exceeds " << r.sinkEpsilon
     << " (Gu et al. 2025's sink rate); n/a: no sequence holds the class.\n\n| layer |";
  for (const auto& c : r.classes) md << " " << c << " |";
  md << "\n|---|";
  for (size_t c = 0; c < r.classes.size(); ++c) md << "---|";
  md << "\n| all |";
  for (const double v : r.sinkRate) md << " " << fixed(100.0 * v, 1) << "% |";
  md << "\n";
  const auto C = r.classes.size();
  for (int l = 0; l < r.layers; ++l) {
    md << "| " << l << " |";
    for (size_t c = 0; c < C; ++c)
      md << " " << fixed(100.0 * r.sinkRateByLayer[static_cast<size_t>(l) * C + c], 1) << "% |";
    md << "\n";
  }
  md << "\n";
  markdownLayers(md, r);
  markdownRotary(md, r);
  markdownHeads(md, r);
  return md.str();
}

std::vector<fs::path> writeHealthReport(const HealthReport& report, const fs::path& folder) {
  const std::map<std::string, std::string> files = {{"health.json", healthJson(report)},
                                                    {"health.csv", healthCsv(report)},
                                                    {"health_layers.csv", healthLayersCsv(report)},
                                                    {"health.md", healthMarkdown(report)}};
  prepareReportFolder(folder);
  return writeReportFiles(folder, files, [](const std::string& name) {
    return name.starts_with("health") &&
           (name.ends_with(".csv") || name.ends_with(".json") || name.ends_with(".md"));
  });
}

}  // namespace attnlab::analysis
