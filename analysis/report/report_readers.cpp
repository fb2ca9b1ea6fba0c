#include "analysis/report/report_readers.h"

#include "analysis/report/json_report.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace attnlab::analysis {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Bounds on the model's shape: far above any real model, low enough that L * H * 5 entries
// cannot overflow or ask for gigabytes because of a corrupted number.
constexpr int kMaxLayersOrHeads = 4096;

/// "found a string ("abc")": the type and, for a scalar, the value, shortened.
std::string describe(const json& value) {
  std::string out = std::string("found ") + (value.is_array() || value.is_object() ? "an " : "a ") +
                    value.type_name();
  if (!value.is_structured()) {
    std::string shown = value.dump();
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    out += " (" + shown + ")";
  }
  return out;
}

/// JSON pointer escaping (RFC 6901): '~' -> "~0", '/' -> "~1".
std::string escapeKey(const std::string& key) {
  std::string out;
  for (const char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

/// One value of the document and where it is. Every accessor names the file (where()) and
/// the value's JSON pointer (the reason's start) when the value is missing, of the wrong type
/// or out of range, so a truncated or hand-edited report says exactly what to fix.
class Node {
 public:
  Node(const json& value, std::string pointer, const std::string& file)
      : m_value(&value), m_pointer(std::move(pointer)), m_file(&file) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw DataError(*m_file,
                    (m_pointer.empty() ? std::string("top level") : m_pointer) + ": " + reason);
  }

  /// fail() at the pointer of member `key`, which need not exist.
  [[noreturn]] void failMember(const char* key, const std::string& reason) const {
    Node(missingValue(), m_pointer + "/" + escapeKey(key), *m_file).fail(reason);
  }

  const json& value() const { return *m_value; }
  bool isNull() const { return m_value->is_null(); }

  /// A member that must be there.
  Node operator[](const char* key) const {
    requireObject();
    const auto it = m_value->find(key);
    if (it == m_value->end()) failMember(key, "missing");
    return Node(*it, m_pointer + "/" + escapeKey(key), *m_file);
  }
  /// A member that may be absent (one added to the format after version 1 was published).
  std::optional<Node> find(const char* key) const {
    requireObject();
    const auto it = m_value->find(key);
    if (it == m_value->end()) return std::nullopt;
    return Node(*it, m_pointer + "/" + escapeKey(key), *m_file);
  }

  std::size_t size() const {
    if (!m_value->is_array()) fail("expected an array, " + describe(*m_value));
    return m_value->size();
  }
  /// An array of exactly `n` entries.
  std::size_t size(std::size_t n, const std::string& why) const {
    const auto got = size();
    if (got != n) {
      fail("expected " + std::to_string(n) + " entries (" + why + "), found " +
           std::to_string(got));
    }
    return got;
  }
  Node at(std::size_t i) const {
    return Node((*m_value)[i], m_pointer + "/" + std::to_string(i), *m_file);
  }

  std::int64_t integer() const {
    if (m_value->is_number_unsigned()) {
      const auto u = m_value->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail("integer " + m_value->dump() + " is too large");
      }
      return static_cast<std::int64_t>(u);
    }
    if (!m_value->is_number_integer()) fail("expected an integer, " + describe(*m_value));
    return m_value->get<std::int64_t>();
  }
  /// An integer in [lo, hi], for shapes and indices the reader sizes arrays by.
  int integerIn(std::int64_t lo, std::int64_t hi) const {
    const auto v = integer();
    if (v < lo || v > hi) {
      fail("expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
           ", found " + std::to_string(v));
    }
    return static_cast<int>(v);
  }
  /// A number; null is NaN (the writer prints NaN and infinities as null).
  double real() const {
    if (m_value->is_null()) return kNaN;
    if (!m_value->is_number()) fail("expected a number or null, " + describe(*m_value));
    return m_value->get<double>();
  }
  std::string text() const {
    if (!m_value->is_string()) fail("expected a string, " + describe(*m_value));
    return m_value->get<std::string>();
  }

  std::vector<double> reals() const {
    std::vector<double> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = this->at(i).real();
    return out;
  }
  std::vector<std::int64_t> integers() const {
    std::vector<std::int64_t> out(size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = this->at(i).integer();
    return out;
  }

 private:
  void requireObject() const {
    if (!m_value->is_object()) fail("expected an object, " + describe(*m_value));
  }
  static const json& missingValue() {
    static const json missing;
    return missing;
  }

  const json* m_value;
  std::string m_pointer;
  const std::string* m_file;
};

/// The file's JSON; DataError naming the path when it cannot be read or is not JSON.
json parseFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw DataError(path.string(), "no such file");
  if (fs::is_directory(path, ec)) {
    throw DataError(path.string(),
                    "is a folder; expected a report file (analysis.json, "
                    "coref.json)");
  }
  const std::string text = core::readFileBytes(path);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // nlohmann's what() is "[json.exception.parse_error.101] parse error at line L, column
    // C: reason"; the bracketed id means nothing to a user. Besides parse errors, the parser
    // throws out_of_range for a number beyond a double ("1e400": valid JSON, no value).
    std::string reason = e.what();
    const auto close = reason.find("] ");
    if (reason.rfind("[json.exception", 0) == 0 && close != std::string::npos) {
      reason = reason.substr(close + 2);
    }
    const bool syntax = dynamic_cast<const json::parse_error*>(&e) != nullptr;
    throw DataError(path.string(), (syntax ? "not JSON: " : "unreadable JSON: ") + reason);
  }
}

std::string formatTitle(const std::string& format) {
  if (format == kAnalysisFormat) return "an attention analysis report (analysis.json)";
  if (format == kCorefFormat) return "a coreference probe report (coref.json)";
  if (format == kCorefExamplesFormat) return "a coreference probe's examples (coref_examples.json)";
  if (format == kHeadComparisonFormat) return "a heads comparison (heads_comparison.json)";
  return "\"" + format + "\"";
}

/// The document is `expected` at a version this reader knows.
void checkFormat(const Node& root, const std::string& expected, int known = kReportFormatVersion) {
  if (!root.value().is_object()) {
    root.fail("expected an object with \"format\": \"" + expected + "\", " +
              describe(root.value()));
  }
  const auto formatNode = root.find("format");
  if (!formatNode) {
    root.failMember("format", "missing: not an AttnLab report (expected \"" + expected + "\")");
  }
  const auto format = formatNode->text();
  if (format != expected) {
    formatNode->fail("the file is " + formatTitle(format) + ", not " + formatTitle(expected));
  }
  const auto versionNode = root["format_version"];
  const auto version = versionNode.integer();
  if (version > known) {
    versionNode.fail("format_version " + std::to_string(version) +
                     " is newer than this AttnLab reads (format_version " + std::to_string(known) +
                     "); open it with a newer AttnLab");
  }
  if (version < 1) {
    versionNode.fail("format_version " + std::to_string(version) +
                     " does not exist (the first is 1)");
  }
}

AnalysedCheckpoint readRun(const Node& run) {
  AnalysedCheckpoint source;
  source.runDir = run["directory"].text();
  source.runName = run["name"].text();
  source.checkpoint = run["checkpoint"].text();
  source.step = run["step"].integer();
  // Reports written before non-probability maps existed read probabilities.
  if (const auto maps = run.find("attention_maps")) source.attentionMaps = maps->text();
  return source;
}

std::vector<SkippedData> readSkipped(const Node& list) {
  std::vector<SkippedData> out(list.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].where = list.at(i)["where"].text();
    out[i].reason = list.at(i)["reason"].text();
  }
  return out;
}

ColourClass readColour(const Node& node) {
  const auto name = node.text();
  for (const auto c :
       {ColourClass::Blue, ColourClass::Yellow, ColourClass::Red, ColourClass::None}) {
    if (name == colourName(c)) return c;
  }
  node.fail("unknown colour class \"" + name + "\" (blue, yellow, red or none)");
}

DistributionSummary readDistribution(const Node& n) {
  DistributionSummary d;
  d.count = n["count"].integer();
  d.mean = n["mean"].real();
  d.min = n["min"].real();
  d.q1 = n["q1"].real();
  d.median = n["median"].real();
  d.q3 = n["q3"].real();
  d.max = n["max"].real();
  d.resolution = n["resolution"].real();
  if (const auto clamped = n.find("clamped")) d.clamped = clamped->integer();
  const auto histogram = n["histogram"];
  d.histogramEdges = histogram["edges"].reals();
  d.histogramCounts = histogram["counts"].integers();
  if (!d.histogramEdges.empty() || !d.histogramCounts.empty()) {
    histogram["edges"].size(d.histogramCounts.size() + 1, "one more edge than counts");
  }
  const auto kde = n["kde"];
  d.kdeX = kde["x"].reals();
  d.kdeDensity = kde["density"].reals();
  kde["density"].size(d.kdeX.size(), "one density per x");
  d.kdeBandwidth = kde["bandwidth"].real();
  return d;
}

HeadSummary readHeadSummary(const Node& n) {
  HeadSummary sum;
  sum.first = n["first"].real();
  sum.separator = n["separator"].real();
  sum.period = n["period"].real();
  sum.previous = n["previous"].real();
  sum.next = n["next"].real();
  sum.self = n["self"].real();
  return sum;
}

LoggedSeries readSeries(const Node& n) {
  LoggedSeries v;
  v.name = n["name"].text();
  v.description = n["description"].text();
  v.unit = n["unit"].text();
  v.steps = n["steps"].integers();
  const auto shape = n["inner_shape"];
  std::size_t perStep = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const auto dim = shape.at(i).integerIn(0, 1 << 20);
    v.innerShape.push_back(dim);
    perStep *= static_cast<std::size_t>(dim);
  }
  const auto values = n["values"];
  values.size(v.steps.size() * perStep, "steps times the inner shape");
  v.values.resize(values.size());
  // The writer widened each float to double, which prints and parses back to that double;
  // narrowing it again gives the float exactly.
  for (std::size_t i = 0; i < v.values.size(); ++i) {
    v.values[i] = static_cast<float>(values.at(i).real());
  }
  return v;
}

/// Layer-major entries must carry their own index: a reordered list is named, not misread.
void expectIndex(const Node& entry, const char* key, std::size_t expected) {
  if (entry[key].integer() != static_cast<std::int64_t>(expected)) {
    entry[key].fail("expected " + std::string(key) + " " + std::to_string(expected) +
                    " (entries are in layer-major order), found " +
                    std::to_string(entry[key].integer()));
  }
}

RolloutSummary readRolloutSummary(const Node& n, std::size_t L) {
  RolloutSummary r;
  r.layers = static_cast<int>(L);
  r.rows = n["rows"].integer();
  const auto layers = n["per_layer"];
  layers.size(L, "one per layer");
  for (std::size_t l = 0; l < L; ++l) {
    const auto e = layers.at(l);
    expectIndex(e, "layer", l);
    r.diagonal.push_back(e["diagonal"].real());
    r.spread.push_back(e["spread"].real());
    r.entropy.push_back(e["entropy"].real());
  }
  return r;
}

NormSummary readNormSummary(const Node& n, std::size_t L, std::size_t H) {
  NormSummary s;
  s.layers = static_cast<int>(L);
  s.heads = static_cast<int>(H);
  s.cells = n["cells"].integer();
  const auto heads = n["per_head"];
  heads.size(L * H, "layers x heads, layer-major");
  for (std::size_t i = 0; i < L * H; ++i) {
    const auto e = heads.at(i);
    expectIndex(e, "layer", i / H);
    expectIndex(e, "head", i % H);
    s.headCorrelation.push_back(e["weight_norm_correlation"].real());
    s.meanValueNorm.push_back(e["mean_value_norm"].real());
  }
  const auto layers = n["per_layer"];
  layers.size(L, "one per layer");
  for (std::size_t l = 0; l < L; ++l) {
    expectIndex(layers.at(l), "layer", l);
    s.layerCorrelation.push_back(layers.at(l)["weight_norm_correlation"].real());
  }
  return s;
}

LensSummary readLensSummary(const Node& n, std::size_t L) {
  LensSummary s;
  s.layers = n["layers"].integerIn(static_cast<std::int64_t>(L), static_cast<std::int64_t>(L));
  const auto outputRow = n["output_row"];
  if (!outputRow.value().is_boolean()) outputRow.fail("expected true or false");
  s.outputRow = outputRow.value().get<bool>();
  const auto masking = n["masking"];
  s.maskFraction = masking["fraction"].real();
  const auto seed = masking["seed"];
  if (!seed.value().is_number_integer()) seed.fail("expected an integer seed");
  s.seed = seed.value().get<std::uint64_t>();
  s.positions = n["positions"].integer();
  const auto rows = n["rows"];
  rows.size(L + (s.outputRow ? 1 : 0), "one per layer, and the output when output_row");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto e = rows.at(r);
    expectIndex(e, "row", r);
    LensSummaryRow row;
    row.accuracy = e["accuracy"].real();
    row.meanRank = e["mean_rank"].real();
    row.meanEntropy = e["mean_entropy"].real();
    row.meanKlToOutput = e["mean_kl_to_output"].real();
    s.rows.push_back(row);
  }
  const auto half = n["half_accuracy_row"];
  s.halfAccuracyRow =
      half.isNull() ? -1 : half.integerIn(0, static_cast<std::int64_t>(s.rows.size()) - 1);
  return s;
}

/// analysis.json's "beyond_weights" (absent in a report written before it existed: none).
BeyondWeightsSummaries readBeyondWeights(const Node& n, std::size_t L, std::size_t H) {
  BeyondWeightsSummaries s;
  if (const auto r = n.find("rollout")) s.rollout = readRolloutSummary(*r, L);
  if (const auto r = n.find("norms")) s.norms = readNormSummary(*r, L, H);
  if (const auto r = n.find("lens")) s.lens = readLensSummary(*r, L);
  if (const auto r = n.find("lens_skipped")) s.lensSkippedNoMlmHead = r->text() == "no_mlm_head";
  return s;
}

MaskedLmScore readScore(const Node& n) {
  return {n["loss"].real(), n["accuracy"].real()};
}

/// [L][H] nested arrays, flattened l * H + h.
std::vector<double> readByLayer(const Node& n, std::size_t L, std::size_t H) {
  std::vector<double> out;
  n.size(L, "one entry per layer");
  for (std::size_t l = 0; l < L; ++l) {
    const auto row = n.at(l);
    row.size(H, "one entry per head");
    const auto values = row.reals();
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

PruningCurve readPruningCurve(const Node& n, int L, int H) {
  PruningCurve c;
  c.order = n["order"].text();
  c.seed = static_cast<std::uint64_t>(n["seed"].integer());
  const auto heads = n["heads"];
  for (std::size_t i = 0; i < heads.size(); ++i)
    c.heads.push_back(heads.at(i).integerIn(0, L * H - 1));
  const auto points = n["points"];
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto p = points.at(i);
    c.points.push_back({p["masked"].integerIn(0, L * H),
                        p["share"].real(),
                        {p["loss"].real(), p["accuracy"].real()}});
  }
  return c;
}

/// analysis.json's "head_analysis" (analyze --heads; absent otherwise).
HeadReport readHeadReport(const Node& n, std::size_t L, std::size_t H) {
  HeadReport r;
  r.layers = static_cast<int>(L);
  r.heads = static_cast<int>(H);
  r.sequences = n["sequences"].integer();
  r.positions = n["positions"].integer();
  r.maskSeed = static_cast<std::uint64_t>(n["masking"]["seed"].integer());
  r.full = readScore(n["full"]);
  r.importanceRaw = readByLayer(n["importance"]["raw"], L, H);
  r.importance = readByLayer(n["importance"]["normalised"], L, H);
  if (const auto ablation = n.find("ablation")) {
    ablation->size(L * H, "one entry per head");
    for (std::size_t k = 0; k < L * H; ++k) r.ablation.push_back(readScore(ablation->at(k)));
  }
  const auto pruning = n["pruning"];
  for (std::size_t i = 0; i < pruning.size(); ++i)
    r.pruning.push_back(readPruningCurve(pruning.at(i), r.layers, r.heads));
  r.pruningPasses = n["pruning_passes"].integerIn(0, static_cast<std::int64_t>(L * H));
  const auto seconds = n["seconds"];
  r.evaluationSeconds = seconds["evaluation"].real();
  r.importanceSeconds = seconds["importance"].real();
  r.ablationSeconds = seconds["ablation"].real();
  r.pruningSeconds = seconds["pruning"].real();
  return r;
}

/// "evaluation" but its row counts (they belong to the statistics, read after the shape).
void readEvaluation(const Node& evaluation, AnalysisReport& r) {
  r.evaluationKind = evaluation["kind"].text();
  r.evaluationDescription = evaluation["description"].text();
  r.evaluationSequences = evaluation["sequences"].integer();
  r.maxLength = evaluation["max_length"].integerIn(0, std::numeric_limits<int>::max());
  r.skipped = readSkipped(evaluation["skipped"]);
}

/// "units" and "options": entropy is always in nats; the JSD base and smoothing vary.
void readUnitsAndOptions(const Node& root, AttentionStatisticsResult& s) {
  const auto units = root["units"];
  if (units["entropy"].text() != "nats") {
    units["entropy"].fail("expected \"nats\" (entropy is always in nats), found \"" +
                          units["entropy"].text() + "\"");
  }
  const auto jsdUnit = units["jsd"].text();
  if (jsdUnit == "bits") {
    s.jsdBase = LogBase::Bits;
  } else if (jsdUnit == "nats") {
    s.jsdBase = LogBase::Nats;
  } else {
    units["jsd"].fail("expected \"bits\" or \"nats\", found \"" + jsdUnit + "\"");
  }
  const auto smoothing = root["options"]["jsd_smoothing"];
  const auto smoothingName = smoothing.text();
  if (smoothingName == "none") {
    s.clarkSmoothing = false;
  } else if (smoothingName.rfind("clark", 0) == 0) {
    s.clarkSmoothing = true;
  } else {
    smoothing.fail("expected \"none\" or \"clark (...)\", found \"" + smoothingName + "\"");
  }
}

void readHeadOrder(const Node& order, std::size_t L, std::size_t H, AttentionStatisticsResult& s) {
  order.size(L, "one order per layer");
  s.headOrder.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    const auto layer = order.at(l);
    layer.size(H, "one entry per head");
    for (std::size_t k = 0; k < H; ++k)
      s.headOrder[l].push_back(layer.at(k).integerIn(0, s.heads - 1));
  }
}

/// An entry's "layer" or "head" must be its place in the layer-major list.
void requireIndex(const Node& index, const char* what, std::size_t expected) {
  if (index.integer() != static_cast<std::int64_t>(expected)) {
    index.fail(std::string("expected ") + what + " " + std::to_string(expected) +
               " (entries are in layer-major order), found " + std::to_string(index.integer()));
  }
}

/// Entry i of "per_head" into the statistics' per-head vectors (sized by the caller).
void readHeadEntry(const Node& head, std::size_t i, std::size_t H, AttentionStatisticsResult& s) {
  const std::size_t P = kGuidancePatterns.size();
  const auto l = i / H;
  const auto h = i % H;
  requireIndex(head["layer"], "layer", l);
  requireIndex(head["head"], "head", h);
  s.entropy[i] = readDistribution(head["entropy"]);
  s.entropyColours[i] = readColour(head["entropy"]["colour"]);
  s.headSummaries[i] = readHeadSummary(head["attention_to"]);
  const auto conformity = head["guidance_conformity"];
  for (std::size_t p = 0; p < P; ++p) {
    const auto pattern = conformity[kGuidancePatterns[p]];
    s.guidanceDistance[i * P + p] = pattern["total_variation"].real();
    s.guidanceMse[i * P + p] = pattern["mse"].real();
  }
  if (l > 0) {
    const auto j = (l - 1) * H + h;
    s.adjacentJsd[j] = readDistribution(head["jsd_to_layer_below"]);
    s.jsdColours[j] = readColour(head["jsd_to_layer_below"]["colour"]);
  }
}

void readPerHead(const Node& heads, std::size_t L, std::size_t H, AttentionStatisticsResult& s) {
  const std::size_t P = kGuidancePatterns.size();
  heads.size(L * H, "layers x heads, layer-major");
  s.entropy.resize(L * H);
  s.entropyColours.resize(L * H);
  s.headSummaries.resize(L * H);
  s.guidanceDistance.resize(L * H * P);
  s.guidanceMse.resize(L * H * P);
  s.adjacentJsd.resize((L - 1) * H);
  s.jsdColours.resize((L - 1) * H);
  for (std::size_t i = 0; i < L * H; ++i) readHeadEntry(heads.at(i), i, H, s);
}

void readPairwise(const Node& pairwise, std::size_t L, std::size_t H,
                  AttentionStatisticsResult& s) {
  s.pairwiseSequencesUsed = pairwise["sequences"].integer();
  if (pairwise["size"].integer() != static_cast<std::int64_t>(L * H)) {
    pairwise["size"].fail("expected " + std::to_string(L * H) + " (layers x heads), found " +
                          std::to_string(pairwise["size"].integer()));
  }
  s.pairwiseJsd = pairwise["values"].reals();
  if (!s.pairwiseJsd.empty()) {
    pairwise["values"].size(L * H * L * H, "a square matrix of layers x heads, or none");
  }
}

TrainingStatisticsPoint readTrainingPoint(const Node& n, std::size_t L, std::size_t H) {
  const std::size_t P = kGuidancePatterns.size();
  TrainingStatisticsPoint p;
  p.source = n["source"].text();
  p.step = n["step"].integer();
  p.sequences = n["sequences"].integer();
  p.medianEntropy = n["median_entropy"].reals();
  n["median_entropy"].size(L * H, "one per head");
  p.medianAdjacentJsd = n["median_jsd_to_layer_below"].reals();
  n["median_jsd_to_layer_below"].size((L - 1) * H, "one per head above layer 0");
  const auto summaries = n["attention_to"];
  summaries.size(L * H, "one per head");
  for (std::size_t k = 0; k < L * H; ++k)
    p.headSummaries.push_back(readHeadSummary(summaries.at(k)));
  p.guidanceDistance = n["guidance_total_variation"].reals();
  n["guidance_total_variation"].size(L * H * P, "one per head and guidance pattern");
  return p;
}

}  // namespace

AnalysisReport readAnalysisJson(const fs::path& path) {
  const std::string file = path.string();
  const json doc = parseFile(path);
  const Node root(doc, "", file);
  checkFormat(root, kAnalysisFormat);

  AnalysisReport r;
  r.source = readRun(root["run"]);
  r.availableSteps = root["available_checkpoint_steps"].integers();
  const auto evaluation = root["evaluation"];
  readEvaluation(evaluation, r);

  auto& s = r.statistics;
  s.layers = root["layers"].integerIn(1, kMaxLayersOrHeads);
  s.heads = root["heads"].integerIn(1, kMaxLayersOrHeads);
  const auto L = static_cast<std::size_t>(s.layers);
  const auto H = static_cast<std::size_t>(s.heads);
  // The analysis ran the whole evaluation set, so the statistics saw exactly its sequences.
  s.sequences = r.evaluationSequences;
  s.rows = evaluation["real_query_rows_per_head"].integer();
  s.skippedRows = evaluation["skipped_rows"]["count"].integer();
  readUnitsAndOptions(root, s);
  readHeadOrder(root["head_order_by_median_entropy"], L, H, s);
  readPerHead(root["per_head"], L, H, s);
  readPairwise(root["pairwise_jsd"], L, H, s);

  if (const auto beyond = root.find("beyond_weights")) r.beyond = readBeyondWeights(*beyond, L, H);
  if (const auto heads = root.find("head_analysis")) r.heads = readHeadReport(*heads, L, H);
  const auto variants = root["variant_series"];
  for (std::size_t i = 0; i < variants.size(); ++i) {
    r.variantSeries.push_back(readSeries(variants.at(i)));
  }
  const auto training = root["over_training"];
  for (std::size_t i = 0; i < training.size(); ++i) {
    r.overTraining.push_back(readTrainingPoint(training.at(i), L, H));
  }
  r.seconds = root["seconds"].real();
  r.configToml = root["config_toml"].text();
  return r;
}

CorefProbeReport readCorefJson(const fs::path& path) {
  const std::string file = path.string();
  const json doc = parseFile(path);
  const Node root(doc, "", file);
  checkFormat(root, kCorefFormat);

  CorefProbeReport r;
  auto& p = r.result;
  r.source = readRun(root["run"]);

  const auto dataset = root["dataset"];
  r.dataset = dataset["name"].text();
  r.datasetDescription = dataset["description"].text();
  r.examples = dataset["examples"].integer();
  p.examples = r.examples;  // the probe scored exactly the examples the report counts
  p.items = dataset["items"].integer();
  r.skipped = readSkipped(dataset["skipped"]);
  dataset["skipped"].size(static_cast<std::size_t>(dataset["skipped_count"].integerIn(
                              0, std::numeric_limits<int>::max())),
                          "skipped_count");

  const auto scoring = root["scoring"];
  r.scope = scoring["argmax_over"].text();
  if (const auto argmax = scoring.find("argmax")) {
    const auto name = argmax->text();
    if (name == argmaxName(coref::ArgmaxScope::AllWords)) {
      p.scope = coref::ArgmaxScope::AllWords;
    } else if (name == argmaxName(coref::ArgmaxScope::ExcludeSelfAndSpecials)) {
      p.scope = coref::ArgmaxScope::ExcludeSelfAndSpecials;
    } else {
      argmax->fail("expected \"all\" or \"exclude-self-special\", found \"" + name + "\"");
    }
  } else {
    // Written before `argmax` existed: the probe's two descriptions tell the scopes apart.
    p.scope = r.scope.rfind("all words, <s> and </s> included", 0) == 0
                  ? coref::ArgmaxScope::AllWords
                  : coref::ArgmaxScope::ExcludeSelfAndSpecials;
  }

  p.layers = root["layers"].integerIn(1, kMaxLayersOrHeads);
  p.heads = root["heads"].integerIn(1, kMaxLayersOrHeads);
  const auto LH = static_cast<std::size_t>(p.layers) * static_cast<std::size_t>(p.heads);
  const auto accuracy = root["accuracy"]["values"];
  p.accuracy = accuracy.reals();
  accuracy.size(LH, "layers x heads, layer-major");
  p.correct = root["correct"].integers();
  root["correct"].size(LH, "layers x heads, layer-major");

  const auto best = root["best_head"];
  if (best.isNull()) {
    p.bestLayer = -1;
    p.bestHead = -1;
    p.bestAccuracy = 0.0;
  } else {
    p.bestLayer = best["layer"].integerIn(0, p.layers - 1);
    p.bestHead = best["head"].integerIn(0, p.heads - 1);
    p.bestAccuracy = best["accuracy"].real();
  }
  p.meanAccuracy = root["mean_over_heads"].real();

  const auto baselines = root["baselines"];
  for (std::size_t i = 0; i < baselines.size(); ++i) {
    const auto n = baselines.at(i);
    coref::BaselineScore b;
    b.name = n["name"].text();
    b.description = n["description"].text();
    b.correct = n["correct"].integer();
    b.items = n["items"].integer();
    b.accuracy = n["accuracy"].real();
    p.baselines.push_back(std::move(b));
  }
  r.seconds = root["seconds"].real();
  return r;
}

coref::ProbeExamples readCorefExamplesJson(const fs::path& path) {
  const std::string file = path.string();
  const json doc = parseFile(path);
  const Node root(doc, "", file);
  checkFormat(root, kCorefExamplesFormat, kCorefExamplesFormatVersion);

  coref::ProbeExamples k;
  k.layers = root["layers"].integerIn(1, kMaxLayersOrHeads);
  k.heads = root["heads"].integerIn(1, kMaxLayersOrHeads);
  const auto argmax = root["argmax"];
  const auto name = argmax.text();
  if (name == argmaxName(coref::ArgmaxScope::AllWords)) {
    k.scope = coref::ArgmaxScope::AllWords;
  } else if (name == argmaxName(coref::ArgmaxScope::ExcludeSelfAndSpecials)) {
    k.scope = coref::ArgmaxScope::ExcludeSelfAndSpecials;
  } else {
    argmax.fail("expected \"all\" or \"exclude-self-special\", found \"" + name + "\"");
  }
  k.probed = root["probed"].integer();
  const auto heads = static_cast<std::size_t>(k.layers) * static_cast<std::size_t>(k.heads);
  const auto examples = root["examples"];
  root["examples"].size(static_cast<std::size_t>(root["kept"].integer()), "kept");
  if (static_cast<std::int64_t>(examples.size()) > k.probed)
    root["kept"].fail("more examples kept than probed (" + std::to_string(k.probed) + ")");
  k.examples.resize(examples.size());
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const auto e = examples.at(i);
    auto& out = k.examples[i];
    out.source = e["source"].text();
    const auto words = e["words"];
    out.words.resize(words.size());
    for (std::size_t w = 0; w < out.words.size(); ++w) out.words[w] = words.at(w).text();
    const auto W = out.words.size();
    if (W == 0) words.fail("expected at least one word");
    // Every index must name a word, so a program can index words and rows unchecked.
    const auto wordIndex = [W](const Node& n, std::int64_t lo) {
      return n.integerIn(lo, static_cast<std::int64_t>(W) - 1);
    };
    const auto items = e["items"];
    out.items.resize(items.size());
    for (std::size_t j = 0; j < items.size(); ++j) {
      const auto n = items.at(j);
      auto& item = out.items[j];
      item.queryWord = wordIndex(n["query"], 0);
      const auto correct = n["correct"];
      for (std::size_t c = 0; c < correct.size(); ++c)
        item.correctWords.push_back(wordIndex(correct.at(c), 0));
      const auto picked = n["picked"];
      picked.size(heads, "one per head, layers x heads");
      for (std::size_t h = 0; h < heads; ++h) item.picked.push_back(wordIndex(picked.at(h), -1));
      const auto rows = n["rows"];
      rows.size(heads, "one per head, layers x heads");
      item.rows.resize(heads * W);
      for (std::size_t h = 0; h < heads; ++h) {
        const auto row = rows.at(h);
        row.size(W, "one per word");
        for (std::size_t w = 0; w < W; ++w)
          item.rows[h * W + w] = static_cast<float>(row.at(w).real());
      }
    }
  }
  return k;
}

}  // namespace attnlab::analysis

namespace attnlab::analysis {

namespace {

ComparedModel readComparedModel(const Node& n) {
  ComparedModel m;
  m.source.runDir = n["run_dir"].text();
  m.source.runName = n["run_name"].text();
  m.source.checkpoint = n["checkpoint"].text();
  m.source.step = n["step"].integer();
  m.tokenizer = n["tokenizer"].text();
  m.layers = n["layers"].integerIn(1, kMaxLayersOrHeads);
  m.heads = n["heads"].integerIn(1, kMaxLayersOrHeads);
  m.hidden = n["hidden_size"].integerIn(1, 1 << 20);
  return m;
}

std::vector<int> readIndices(const Node& n, std::size_t count, int below) {
  n.size(count, "one entry per head");
  std::vector<int> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(n.at(i).integerIn(0, below - 1));
  return out;
}

void readComparedHeads(const Node& n, HeadComparison& r) {
  const auto L = static_cast<std::size_t>(r.a.layers), H = static_cast<std::size_t>(r.a.heads);
  const auto jsd = n["jsd"];
  jsd.size(L, "one entry per layer");
  for (std::size_t l = 0; l < L; ++l) {
    const auto rows = jsd.at(l);
    rows.size(H, "one row per head of run A");
    for (std::size_t a = 0; a < H; ++a) {
      rows.at(a).size(H, "one entry per head of run B");
      const auto values = rows.at(a).reals();
      r.jsd.insert(r.jsd.end(), values.begin(), values.end());
    }
  }
  const auto layers = n["per_layer"];
  layers.size(L, "one entry per layer");
  for (std::size_t l = 0; l < L; ++l) {
    const auto e = layers.at(l);
    LayerHeadMatching m;
    m.match = readIndices(e["matching"], H, r.a.heads);
    m.matchedJsd = e["matched_jsd"].reals();
    m.meanMatched = e["mean_matched_jsd"].real();
    m.identityJsd = e["identity_jsd"].reals();
    m.meanIdentity = e["mean_identity_jsd"].real();
    m.nearest = readIndices(e["nearest"], H, r.a.heads);
    e["matched_jsd"].size(H, "one entry per head");
    e["identity_jsd"].size(H, "one entry per head");
    r.matching.push_back(std::move(m));
  }
}

}  // namespace

HeadComparison readHeadComparisonJson(const fs::path& path) {
  const std::string file = path.string();
  const json doc = parseFile(path);
  const Node root(doc, "", file);
  checkFormat(root, kHeadComparisonFormat);
  HeadComparison r;
  r.a = readComparedModel(root["a"]);
  r.b = readComparedModel(root["b"]);
  const auto evaluation = root["evaluation"];
  r.evaluationKind = evaluation["kind"].text();
  r.evaluationDescription = evaluation["description"].text();
  r.sequences = evaluation["sequences"].integer();
  r.tokens = evaluation["tokens"].integer();
  readComparedHeads(root["heads"], r);
  if (const auto cka = root.find("cka")) {
    const auto matrix = (*cka)["matrix"];
    matrix.size(static_cast<std::size_t>(r.a.layers + 1), "the embeddings and each layer of A");
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      matrix.at(i).size(static_cast<std::size_t>(r.b.layers + 1),
                        "the embeddings and each layer of B");
      const auto row = matrix.at(i).reals();
      r.cka.insert(r.cka.end(), row.begin(), row.end());
    }
    r.ckaTokens = (*cka)["tokens"].integer();
  }
  r.seconds = root["seconds"].real();
  return r;
}

}  // namespace attnlab::analysis
