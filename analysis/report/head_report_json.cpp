#include "analysis/report/head_report_json.h"

namespace attnlab::analysis {

using nlohmann::json;

namespace {

json scoreJson(const MaskedLmScore& s) {
  return json{{"loss", s.loss}, {"accuracy", s.accuracy}};
}

/// [L][H] nested arrays of a flat l * H + h vector.
json byLayer(const std::vector<double>& values, int layers, int heads) {
  json out = json::array();
  for (int l = 0; l < layers; ++l)
    out.push_back(
        std::vector<double>(values.begin() + l * heads, values.begin() + (l + 1) * heads));
  return out;
}

json ablationJson(const HeadReport& r) {
  json out = json::array();
  for (int l = 0; l < r.layers; ++l) {
    for (int h = 0; h < r.heads; ++h) {
      const auto& s = r.ablation[static_cast<std::size_t>(l * r.heads + h)];
      out.push_back({{"layer", l},
                     {"head", h},
                     {"loss", s.loss},
                     {"accuracy", s.accuracy},
                     {"loss_delta", s.loss - r.full.loss}});
    }
  }
  return out;
}

json pruningJson(const std::vector<PruningCurve>& curves) {
  json out = json::array();
  for (const auto& c : curves) {
    json points = json::array();
    for (const auto& p : c.points)
      points.push_back({{"masked", p.masked},
                        {"share", p.share},
                        {"loss", p.score.loss},
                        {"accuracy", p.score.accuracy}});
    out.push_back({{"order", c.order}, {"seed", c.seed}, {"heads", c.heads}, {"points", points}});
  }
  return out;
}

}  // namespace

json headReportJson(const HeadReport& r) {
  json out{
      {"source",
       "Michel et al. 2019, Are Sixteen Heads Really Better than One?, section 4: a gate xi_h "
       "on each head's output; importance E_x |dL(x)/dxi_h|"},
      {"masking",
       {{"rule",
         "the logit lens's: 15% of each sequence's real non-special tokens, replaced by <mask>"},
        {"seed", r.maskSeed}}},
      {"units",
       {{"loss", "MLM cross-entropy at the masked positions, nats"},
        {"accuracy", "share of masked positions whose top prediction is the token, 0..1"},
        {"importance",
         "raw: mean over sequences of |d mean loss / d gate|; normalised: divided by the "
         "layer's L2 norm"}}},
      {"sequences", r.sequences},
      {"positions", r.positions},
      {"full", scoreJson(r.full)},
      {"importance",
       {{"raw", byLayer(r.importanceRaw, r.layers, r.heads)},
        {"normalised", byLayer(r.importance, r.layers, r.heads)}}},
      {"pruning", pruningJson(r.pruning)},
      {"pruning_passes", r.pruningPasses},
      {"seconds",
       {{"evaluation", r.evaluationSeconds},
        {"importance", r.importanceSeconds},
        {"ablation", r.ablationSeconds},
        {"pruning", r.pruningSeconds}}}};
  if (!r.ablation.empty()) out["ablation"] = ablationJson(r);
  return out;
}

}  // namespace attnlab::analysis
