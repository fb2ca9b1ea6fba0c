#include "analysis/report/head_comparison_report.h"

#include "core/data/data_files.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <system_error>
#include <utility>

namespace attnlab::analysis {

namespace {

using nlohmann::json;

constexpr const char* kSources =
    "Clark et al. 2019, What Does BERT Look At? (Sec. 6): mean Jensen-Shannon divergence "
    "between heads' attention rows, here between a head of run A and a head of run B on the "
    "same inputs; Kuhn 1955, The Hungarian Method for the Assignment Problem: the pairing "
    "of A's heads with B's of least total JSD per layer; Kornblith et al. 2019, Similarity "
    "of Neural Network Representations Revisited (ICML, Sec. 3): linear CKA between layer "
    "representations";

/// Row/column i of the CKA matrix: the embeddings' output, then each layer's output.
std::string representationName(int i) {
  return i == 0 ? "embeddings" : "layer " + std::to_string(i - 1);
}

/// JSDs near 0 (close checkpoints) keep their digits: %g, not a fixed point.
std::string num(double v, int digits = 9) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

std::string fixed(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", v);
  return buffer;
}

int ckaColumns(const HeadComparison& r) {
  return r.b.layers + 1;
}

std::vector<double> ckaDiagonal(const HeadComparison& r) {
  std::vector<double> d;
  if (r.cka.empty()) return d;
  for (int i = 0; i <= std::min(r.a.layers, r.b.layers); ++i) d.push_back(ckaAt(r, i, i));
  return d;
}

json modelJson(const ComparedModel& m) {
  return {{"run_dir", m.source.runDir},
          {"run_name", m.source.runName},
          {"checkpoint", m.source.checkpoint},
          {"step", m.source.step},
          {"tokenizer", m.tokenizer.string()},
          {"layers", m.layers},
          {"heads", m.heads},
          {"hidden_size", m.hidden}};
}

json headsJson(const HeadComparison& r) {
  const int L = r.a.layers, H = r.a.heads;
  json jsd = json::array(), layers = json::array();
  for (int l = 0; l < L; ++l) {
    json rows = json::array();
    for (int a = 0; a < H; ++a) {
      const auto first = r.jsd.begin() + (l * H + a) * H;
      rows.push_back(std::vector<double>(first, first + H));
    }
    jsd.push_back(rows);
    const auto& m = r.matching[static_cast<std::size_t>(l)];
    layers.push_back({{"layer", l},
                      {"matching", m.match},
                      {"matched_jsd", m.matchedJsd},
                      {"mean_matched_jsd", m.meanMatched},
                      {"identity_jsd", m.identityJsd},
                      {"mean_identity_jsd", m.meanIdentity},
                      {"nearest", m.nearest}});
  }
  return {{"layers", L}, {"heads", H}, {"jsd", jsd}, {"per_layer", layers}};
}

json ckaJson(const HeadComparison& r) {
  json matrix = json::array(), rows = json::array(), columns = json::array();
  for (int i = 0; i <= r.a.layers; ++i) {
    rows.push_back(representationName(i));
    json row = json::array();
    for (int j = 0; j < ckaColumns(r); ++j) row.push_back(ckaAt(r, i, j));
    matrix.push_back(row);
  }
  for (int j = 0; j < ckaColumns(r); ++j) columns.push_back(representationName(j));
  return {{"rows", rows},
          {"columns", columns},
          {"matrix", matrix},
          {"diagonal", ckaDiagonal(r)},
          {"tokens", r.ckaTokens}};
}

std::string comparisonJson(const HeadComparison& r) {
  json out{{"format", "attnlab-heads-comparison"},
           {"format_version", 1},
           {"source", kSources},
           {"units",
            {{"jsd", "bits"},
             {"cka", "linear CKA, 0..1 (1: the same representation up to rotation and scale)"}}},
           {"a", modelJson(r.a)},
           {"b", modelJson(r.b)},
           {"evaluation",
            {{"kind", r.evaluationKind},
             {"description", r.evaluationDescription},
             {"sequences", r.sequences},
             {"tokens", r.tokens}}},
           {"heads", headsJson(r)},
           {"seconds", r.seconds}};
  if (!r.cka.empty()) out["cka"] = ckaJson(r);
  return out.dump(2) + "\n";
}

std::string matchingCsv(const HeadComparison& r) {
  const int H = r.a.heads;
  std::ostringstream out;
  out << "layer,head_a,head_b,matched_jsd_bits,identity_jsd_bits,nearest_b,nearest_jsd_bits\n";
  for (int l = 0; l < r.a.layers; ++l) {
    const auto& m = r.matching[static_cast<std::size_t>(l)];
    for (int h = 0; h < H; ++h) {
      const auto k = static_cast<std::size_t>(h);
      const double nearest = r.jsd[static_cast<std::size_t>((l * H + h) * H + m.nearest[k])];
      out << l << ',' << h << ',' << m.match[k] << ',' << num(m.matchedJsd[k]) << ','
          << num(m.identityJsd[k]) << ',' << m.nearest[k] << ',' << num(nearest) << '\n';
    }
  }
  return out.str();
}

std::string ckaCsv(const HeadComparison& r) {
  std::ostringstream out;
  out << "index_a,name_a,index_b,name_b,cka\n";
  for (int i = 0; i <= r.a.layers; ++i)
    for (int j = 0; j < ckaColumns(r); ++j)
      out << i << ',' << representationName(i) << ',' << j << ',' << representationName(j) << ','
          << num(ckaAt(r, i, j)) << '\n';
  return out.str();
}

void markdownHeader(std::ostringstream& out, const HeadComparison& r) {
  out << "# Heads compared: run `" << r.a.source.runName << "` at step " << r.a.source.step
      << " against run `" << r.b.source.runName << "` at step " << r.b.source.step
      << "\n\n| | |\n|---|---|\n"
      << "| run A | `" << r.a.source.checkpoint << "` |\n"
      << "| run B | `" << r.b.source.checkpoint << "` |\n"
      << "| inputs | " << r.evaluationDescription << ": " << r.sequences << " sequences, "
      << r.tokens << " tokens |\n"
      << "| CKA tokens | " << r.ckaTokens << " |\n\n"
      << "Sources: " << kSources << ".\n";
}

std::string comparisonMarkdown(const HeadComparison& r) {
  std::ostringstream out;
  markdownHeader(out, r);
  out << "\n## Heads: JSD of matched and of same-index heads (bits)\n\n"
         "| layer | mean matched JSD | mean identity JSD | matching (A head -> B head) |\n"
         "|---|---|---|---|\n";
  for (int l = 0; l < r.a.layers; ++l) {
    const auto& m = r.matching[static_cast<std::size_t>(l)];
    out << "| " << l << " | " << num(m.meanMatched, 4) << " | " << num(m.meanIdentity, 4) << " | ";
    for (std::size_t h = 0; h < m.match.size(); ++h)
      out << (h ? ", " : "") << h << "->" << m.match[h];
    out << " |\n";
  }
  if (r.cka.empty()) return out.str();
  out << "\n## Linear CKA between layers (rows: run A, columns: run B)\n\n|   |";
  for (int j = 0; j < ckaColumns(r); ++j) out << ' ' << representationName(j) << " |";
  out << "\n|---|";
  for (int j = 0; j < ckaColumns(r); ++j) out << "---|";
  out << '\n';
  for (int i = 0; i <= r.a.layers; ++i) {
    out << "| " << representationName(i) << " |";
    for (int j = 0; j < ckaColumns(r); ++j) out << ' ' << fixed(ckaAt(r, i, j)) << " |";
    out << '\n';
  }
  return out.str();
}

/// Every file staged under a temporary name, then renamed: a failure leaves the previous
/// report whole rather than half old, half new.
std::vector<std::filesystem::path> writeStaged(const std::filesystem::path& folder,
                                               const std::map<std::string, std::string>& files) {
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged;
  try {
    for (const auto& [name, content] : files) {
      staged.emplace_back(core::temporaryPathFor(folder / name), folder / name);
      core::writeFileAtomically(staged.back().first, content);
    }
  } catch (...) {
    std::error_code ignored;
    for (const auto& entry : staged) std::filesystem::remove(entry.first, ignored);
    throw;
  }
  std::vector<std::filesystem::path> written;
  for (const auto& [temporary, target] : staged) {
    core::replaceFile(temporary, target);
    written.push_back(target);
  }
  return written;
}

}  // namespace

std::string ckaRepresentationName(int i) {
  return representationName(i);
}

double ckaAt(const HeadComparison& r, int i, int j) {
  return r.cka[static_cast<std::size_t>(i * (r.b.layers + 1) + j)];
}

std::map<std::string, std::string> headComparisonFiles(const HeadComparison& r) {
  std::map<std::string, std::string> files = {{kHeadComparisonJson, comparisonJson(r)},
                                              {"heads_comparison.md", comparisonMarkdown(r)}};
  if (!r.matching.empty()) files["heads_matching.csv"] = matchingCsv(r);
  if (!r.cka.empty()) files["cka_layers.csv"] = ckaCsv(r);
  return files;
}

}  // namespace attnlab::analysis

namespace attnlab::analysis {

std::vector<std::filesystem::path> writeHeadComparison(const HeadComparison& report,
                                                       const std::filesystem::path& folder) {
  return writeStaged(folder, headComparisonFiles(report));
}

}  // namespace attnlab::analysis
