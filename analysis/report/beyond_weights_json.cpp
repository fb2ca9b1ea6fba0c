#include "analysis/report/beyond_weights_json.h"

namespace attnlab::analysis {

using nlohmann::json;

namespace {

json rolloutJson(const RolloutSummary& r) {
  json layers = json::array();
  for (int l = 0; l < r.layers; ++l) {
    layers.push_back({{"layer", l},
                      {"diagonal", r.diagonal[l]},
                      {"spread", r.spread[l]},
                      {"entropy", r.entropy[l]}});
  }
  return json{{"source", "Abnar & Zuidema 2020: R_l = rownorm(mean_h A_l,h + I) R_(l-1)"},
              {"reads", "the softmax output, as the other statistics"},
              {"units",
               {{"diagonal", "mean R_ii over real query rows, 0..1"},
                {"spread", "mean sum_j R_ij |i - j| over real query rows, tokens"},
                {"entropy", "mean -sum_j R_ij ln R_ij over real query rows, nats"}}},
              {"rows", r.rows},
              {"per_layer", layers}};
}

json normsJson(const NormSummary& n) {
  json heads = json::array();
  for (int l = 0; l < n.layers; ++l) {
    for (int h = 0; h < n.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * n.heads + h);
      heads.push_back({{"layer", l},
                       {"head", h},
                       {"weight_norm_correlation", n.headCorrelation[k]},
                       {"mean_value_norm", n.meanValueNorm[k]}});
    }
  }
  json layers = json::array();
  for (int l = 0; l < n.layers; ++l)
    layers.push_back({{"layer", l}, {"weight_norm_correlation", n.layerCorrelation[l]}});
  return json{{"source",
               "Kobayashi et al. 2020: ||alpha_ij,h f_h(x_j)||, f_h(x) = (x W_V,h + "
               "b_V,h) W_O,h"},
              {"reads",
               "weights: the softmax output; norms: the matrix that mixed the values (after "
               "convolved attention and SesameBERT's context blur)"},
              {"units",
               {{"weight_norm_correlation",
                 "Pearson r over real (query, key) cells; per layer: the heads' mean weight "
                 "against ||sum_h alpha_ij,h f_h(x_j)||; null where a side is constant"},
                {"mean_value_norm", "mean ||f_h(x_j)|| over real keys, hidden-state units"}}},
              {"cells", n.cells},
              {"per_head", heads},
              {"per_layer", layers}};
}

json lensJson(const LensSummary& s) {
  json rows = json::array();
  for (int r = 0; r < static_cast<int>(s.rows.size()); ++r) {
    const auto& row = s.rows[static_cast<std::size_t>(r)];
    rows.push_back({{"row", r},
                    {"name", lensRowName(s, r)},
                    {"accuracy", row.accuracy},
                    {"mean_rank", row.meanRank},
                    {"mean_entropy", row.meanEntropy},
                    {"mean_kl_to_output", row.meanKlToOutput}});
  }
  return json{
      {"source", "the logit lens: the model's MLM head on every layer's output"},
      {"masking", {{"fraction", s.maskFraction}, {"seed", s.seed}, {"rule", lensMaskingRule(s)}}},
      {"units",
       {{"accuracy", "fraction of masked positions whose target ranks first, 0..1"},
        {"mean_rank", "tokens scored above the target, mean over masked positions"},
        {"mean_entropy", "nats"},
        {"mean_kl_to_output", "KL(output || row), nats"}}},
      {"layers", s.layers},
      {"output_row", s.outputRow},
      {"positions", s.positions},
      {"rows", rows},
      {"half_accuracy_row", s.halfAccuracyRow < 0 ? json(nullptr) : json(s.halfAccuracyRow)}};
}

}  // namespace

std::string lensRowName(const LensSummary& lens, int row) {
  if (lens.outputRow && row == lens.layers) return "output";
  return "layer " + std::to_string(row);
}

std::string lensMaskingRule(const LensSummary& lens) {
  return "per sequence, round(15%) of the real tokens other than <pad> <s> </s> <mask> <unk> "
         "(at least one) replaced by <mask>: those with the smallest splitmix64 keys of (seed " +
         std::to_string(lens.seed) + ", sequence index, position)";
}

json beyondWeightsJson(const BeyondWeightsSummaries& s) {
  json out = json::object();
  if (s.rollout) out["rollout"] = rolloutJson(*s.rollout);
  if (s.norms) out["norms"] = normsJson(*s.norms);
  if (s.lens) out["lens"] = lensJson(*s.lens);
  if (s.lensSkippedNoMlmHead) out["lens_skipped"] = "no_mlm_head";
  return out;
}

}  // namespace attnlab::analysis
