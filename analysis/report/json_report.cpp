#include "analysis/report/json_report.h"

#include "analysis/report/beyond_weights_json.h"
#include "analysis/report/head_report_json.h"
#include "analysis/report/report_units.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdlib>

namespace attnlab::analysis {

using nlohmann::json;

namespace {

json distributionJson(const DistributionSummary& d) {
  return json{{"count", d.count},
              {"mean", d.mean},
              {"min", d.min},
              {"q1", d.q1},
              {"median", d.median},
              {"q3", d.q3},
              {"max", d.max},
              {"resolution", d.resolution},
              {"clamped", d.clamped},
              {"histogram", {{"edges", d.histogramEdges}, {"counts", d.histogramCounts}}},
              {"kde", {{"x", d.kdeX}, {"density", d.kdeDensity}, {"bandwidth", d.kdeBandwidth}}}};
}

json headSummaryJson(const HeadSummary& sum) {
  return json{{"first", sum.first},       {"separator", sum.separator}, {"period", sum.period},
              {"previous", sum.previous}, {"next", sum.next},           {"self", sum.self}};
}

json runJson(const AnalysedCheckpoint& source) {
  return json{{"directory", source.runDir},
              {"name", source.runName},
              {"checkpoint", source.checkpoint},
              {"step", source.step},
              {"attention_maps", source.attentionMaps}};
}

}  // namespace

const char* argmaxName(coref::ArgmaxScope scope) {
  switch (scope) {
    case coref::ArgmaxScope::AllWords:
      return "all";
    case coref::ArgmaxScope::ExcludeSelfAndSpecials:
      return "exclude-self-special";
  }
  return "all";  // unreachable: -Werror=switch keeps the switch complete
}

namespace {

json headJson(const AttentionStatisticsResult& s, int l, int h) {
  const auto i = static_cast<std::size_t>(l * s.heads + h);
  json head{{"layer", l}, {"head", h}};
  head["entropy"] = distributionJson(s.entropy[i]);
  head["entropy"]["colour"] = colourName(s.entropyColours[i]);
  const auto& sum = s.headSummaries[i];
  head["attention_to"] = {{"first", sum.first},   {"separator", sum.separator},
                          {"period", sum.period}, {"previous", sum.previous},
                          {"next", sum.next},     {"self", sum.self}};
  json conformity = json::object();
  for (std::size_t p = 0; p < kGuidancePatterns.size(); ++p) {
    const auto k = i * kGuidancePatterns.size() + p;
    conformity[kGuidancePatterns[p]] = {{"total_variation", s.guidanceDistance[k]},
                                        {"mse", s.guidanceMse[k]}};
  }
  head["guidance_conformity"] = conformity;
  if (l > 0) {
    const auto j = static_cast<std::size_t>((l - 1) * s.heads + h);
    head["jsd_to_layer_below"] = distributionJson(s.adjacentJsd[j]);
    head["jsd_to_layer_below"]["colour"] = colourName(s.jsdColours[j]);
  }
  return head;
}

json perHeadJson(const AttentionStatisticsResult& s) {
  json heads = json::array();
  for (int l = 0; l < s.layers; ++l) {
    for (int h = 0; h < s.heads; ++h) heads.push_back(headJson(s, l, h));
  }
  return heads;
}

json variantSeriesJson(const std::vector<LoggedSeries>& series) {
  json variants = json::array();
  for (const auto& v : series) {
    variants.push_back({{"name", v.name},
                        {"description", v.description},
                        {"unit", v.unit},
                        {"steps", v.steps},
                        {"inner_shape", v.innerShape},
                        {"values", v.values}});
  }
  return variants;
}

json overTrainingJson(const std::vector<TrainingStatisticsPoint>& points) {
  json training = json::array();
  for (const auto& p : points) {
    json summaries = json::array();
    for (const auto& sum : p.headSummaries) summaries.push_back(headSummaryJson(sum));
    training.push_back({{"source", p.source},
                        {"step", p.step},
                        {"sequences", p.sequences},
                        {"median_entropy", p.medianEntropy},
                        {"median_jsd_to_layer_below", p.medianAdjacentJsd},
                        {"attention_to", summaries},
                        {"guidance_total_variation", p.guidanceDistance}});
  }
  return training;
}

json evaluationJson(const AnalysisReport& r) {
  const auto& s = r.statistics;
  json skipped = json::array();
  for (const auto& k : r.skipped) skipped.push_back({{"where", k.where}, {"reason", k.reason}});
  return json{
      {"kind", r.evaluationKind},
      {"description", r.evaluationDescription},
      {"sequences", r.evaluationSequences},
      {"max_length", r.maxLength},
      {"real_query_rows_per_head", s.rows},
      {"skipped_rows",
       {{"count", s.skippedRows},
        {"meaning", "(head, row) pairs left out because the row had no attention on real keys"}}},
      {"skipped", skipped}};
}

json analysisUnitsJson(const std::string& jsdUnit) {
  return json{{"entropy", "nats"},
              {"jsd", jsdUnit},
              {"attention_to", "mean attention mass over real query rows"},
              {"guidance_conformity",
               "total_variation: mean over rows of 0.5 * L1 to the normalised pattern row (0 = "
               "follows it); mse: mean over real cells of (A - P)^2 against the 0/1 pattern"}};
}

}  // namespace

std::string analysisJson(const AnalysisReport& r) {
  const auto& s = r.statistics;
  json doc{
      {"format", kAnalysisFormat},
      {"format_version", kReportFormatVersion},
      {"run", runJson(r.source)},
      {"available_checkpoint_steps", r.availableSteps},
      {"evaluation", evaluationJson(r)},
      {"units", analysisUnitsJson(unitName(s.jsdBase))},
      {"options", {{"jsd_smoothing", s.clarkSmoothing ? "clark (0.001/n + 0.999 p)" : "none"}}},
      {"layers", s.layers},
      {"heads", s.heads},
      {"colour_thresholds",
       {{"entropy_nats", {{"blue_below", 1.5}, {"red_above", 4.5}}},
        {"jsd_bits", {{"blue_below", 0.25}, {"red_above", 0.75}}}}},
      {"head_order_by_median_entropy", s.headOrder},
      {"per_head", perHeadJson(s)},
      {"pairwise_jsd",
       {{"sequences", s.pairwiseSequencesUsed},
        {"size", s.layers * s.heads},
        {"index", "layer * heads + head"},
        {"values", s.pairwiseJsd}}},
      {"beyond_weights", beyondWeightsJson(r.beyond)},
      {"variant_series", variantSeriesJson(r.variantSeries)},
      {"over_training", overTrainingJson(r.overTraining)},
      {"seconds", r.seconds},
      {"config_toml", r.configToml}};
  if (r.heads) doc["head_analysis"] = headReportJson(*r.heads);
  return doc.dump(1) + "\n";
}

std::string corefScoringRule(const std::string& dataset) {
  if (dataset.rfind("conll:", 0) == 0)
    return "a head is right when the mention's head word attends most to the head word of one "
           "of its antecedent mentions";
  return "a head is right when the reflexive attends most to any word of its antecedent noun "
         "phrase (the determiner or the noun, as the official synthetic scorer counts them); a "
         "distractor phrase is never right";
}

namespace {

/// The double whose shortest decimal form is the float's shortest form: nlohmann prints it
/// as such ("0.1", not "0.10000000149011612"), and it converts back to the same float.
double shortest(float value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  *end = '\0';
  return std::strtod(buffer, nullptr);
}

}  // namespace

std::string corefExamplesJson(const coref::ProbeExamples& k) {
  const auto heads = static_cast<std::size_t>(k.layers) * static_cast<std::size_t>(k.heads);
  json examples = json::array();
  for (const auto& e : k.examples) {
    const auto W = e.words.size();
    json items = json::array();
    for (const auto& item : e.items) {
      json rows = json::array();
      for (std::size_t h = 0; h < heads; ++h) {
        json row = json::array();
        for (std::size_t w = 0; w < W; ++w) row.push_back(shortest(item.rows[h * W + w]));
        rows.push_back(std::move(row));
      }
      items.push_back({{"query", item.queryWord},
                       {"correct", item.correctWords},
                       {"picked", item.picked},
                       {"rows", std::move(rows)}});
    }
    examples.push_back({{"source", e.source}, {"words", e.words}, {"items", std::move(items)}});
  }
  json doc{{"format", kCorefExamplesFormat},
           {"format_version", kCorefExamplesFormatVersion},
           {"layers", k.layers},
           {"heads", k.heads},
           {"argmax", argmaxName(k.scope)},
           {"limit",
            {{"examples", coref::ProbeExamples::kMaxExamples},
             {"values", coref::ProbeExamples::kMaxValues},
             {"rule",
              "the first examples probed, at most `examples`, fewer when their rows would hold "
              "more than `values` numbers; the accuracies in coref.json count every example"}}},
           {"probed", k.probed},
           {"kept", k.examples.size()},
           {"complete", k.complete()},
           {"index",
            "words: <s>, the example's words, </s>; query, correct and picked are indices into "
            "words (picked -1: no word allowed); picked and rows per head, layer * heads + head; "
            "rows[head][word]: the query word's word-level attention to that word"},
           {"examples", std::move(examples)}};
  return doc.dump() + "\n";
}

std::string corefJson(const CorefProbeReport& r) {
  const auto& p = r.result;
  json baselines = json::array();
  for (const auto& b : p.baselines) {
    baselines.push_back({{"name", b.name},
                         {"description", b.description},
                         {"correct", b.correct},
                         {"items", b.items},
                         {"accuracy", b.accuracy}});
  }
  json skipped = json::array();
  for (const auto& k : r.skipped) skipped.push_back({{"where", k.where}, {"reason", k.reason}});
  json doc{{"format", kCorefFormat},
           {"format_version", kReportFormatVersion},
           {"run", runJson(r.source)},
           {"dataset",
            {{"name", r.dataset},
             {"description", r.datasetDescription},
             {"examples", r.examples},
             {"items", p.items},
             {"skipped_count", r.skipped.size()},
             {"skipped", skipped}}},
           {"scoring",
            {{"rule", corefScoringRule(r.dataset) +
                          " (word-level attention: sum over pieces as keys, mean over pieces as "
                          "queries)"},
             {"argmax_over", r.scope},
             {"argmax", argmaxName(p.scope)}}},
           {"units", {{"accuracy", "fraction of items, 0..1"}}},
           {"layers", p.layers},
           {"heads", p.heads},
           {"accuracy", {{"index", "layer * heads + head"}, {"values", p.accuracy}}},
           {"correct", p.correct},
           {"best_head",
            p.bestLayer < 0
                ? json(nullptr)
                : json{{"layer", p.bestLayer}, {"head", p.bestHead}, {"accuracy", p.bestAccuracy}}},
           {"mean_over_heads", p.meanAccuracy},
           {"baselines", baselines},
           {"seconds", r.seconds}};
  return doc.dump(1) + "\n";
}

}  // namespace attnlab::analysis
