#include "analysis/report/beyond_weights_tables.h"

#include "analysis/report/beyond_weights_json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace attnlab::analysis {

namespace {

std::string num(double v) {
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

std::string rolloutMarkdown(const RolloutSummary& r) {
  std::ostringstream out;
  out << "\n## Attention rollout per layer\n\n"
      << "Abnar & Zuidema (2020): R_l = rownorm(mean_h A_l,h + I) R_(l-1), over the softmax "
         "output. Means over "
      << r.rows
      << " real query rows: the diagonal mass R_ii, the "
         "spread sum_j R_ij |i - j| (tokens from the query) and the row entropy (nats).\n\n"
      << "| layer | diagonal | spread (tokens) | entropy (nats) |\n|---|---|---|---|\n";
  for (int l = 0; l < r.layers; ++l) {
    out << "| " << l << " | " << fixed(r.diagonal[l]) << " | " << fixed(r.spread[l], 2) << " | "
        << fixed(r.entropy[l]) << " |\n";
  }
  return out.str();
}

std::string normsMarkdown(const NormSummary& n) {
  std::ostringstream out;
  out << "\n## Weights against norms\n\n"
      << "Kobayashi et al. (2020): Pearson r between the weight alpha_ij,h and the norm "
         "||alpha_ij,h f_h(x_j)|| over "
      << n.cells
      << " real cells per head (the norms from "
         "the matrix that mixed the values); mean ||f_h(x_j)|| over real keys; per layer, r "
         "between the heads' mean weight and ||sum_h alpha_ij,h f_h(x_j)||.\n\n"
      << "| layer | layer r | per head: r (mean norm of f) |\n|---|---|---|\n";
  for (int l = 0; l < n.layers; ++l) {
    out << "| " << l << " | " << fixed(n.layerCorrelation[l]) << " |";
    for (int h = 0; h < n.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * n.heads + h);
      out << " h" << h << " " << fixed(n.headCorrelation[k]) << " (" << fixed(n.meanValueNorm[k], 2)
          << ");";
    }
    out << " |\n";
  }
  return out.str();
}

std::string lensMarkdown(const LensSummary& s) {
  std::ostringstream out;
  out << "\n## Logit lens at masked positions\n\n"
      << "The MLM head on every layer's output at " << s.positions << " masked positions ("
      << lensMaskingRule(s)
      << "). Accuracy: the target ranks first; rank: tokens scored "
         "above it; entropy and KL(output || layer) in nats.";
  if (s.halfAccuracyRow >= 0) {
    out << " Half the output's accuracy is first reached at " << lensRowName(s, s.halfAccuracyRow)
        << ".";
  }
  out << "\n\n| row | accuracy | mean rank | entropy (nats) | KL to output (nats) |\n"
      << "|---|---|---|---|---|\n";
  for (int r = 0; r < static_cast<int>(s.rows.size()); ++r) {
    const auto& row = s.rows[static_cast<std::size_t>(r)];
    out << "| " << lensRowName(s, r) << (r == s.halfAccuracyRow ? " (half)" : "") << " | "
        << fixed(100 * row.accuracy, 1) << "% | " << fixed(row.meanRank, 1) << " | "
        << fixed(row.meanEntropy) << " | " << fixed(row.meanKlToOutput) << " |\n";
  }
  return out.str();
}

}  // namespace

void addBeyondWeightsCsv(std::map<std::string, std::string>& tables,
                         const BeyondWeightsSummaries& s) {
  if (const auto& r = s.rollout) {
    std::ostringstream t;
    t << "layer,diagonal_mass,spread_tokens,entropy_nats,rows\n";
    for (int l = 0; l < r->layers; ++l)
      t << l << ',' << num(r->diagonal[l]) << ',' << num(r->spread[l]) << ',' << num(r->entropy[l])
        << ',' << r->rows << '\n';
    tables[kRolloutCsv] = t.str();
  }
  if (const auto& n = s.norms) {
    std::ostringstream heads, layers;
    heads << "layer,head,weight_norm_pearson_r,mean_value_norm,cells\n";
    layers << "layer,mean_weight_layer_norm_pearson_r,cells\n";
    for (int l = 0; l < n->layers; ++l) {
      for (int h = 0; h < n->heads; ++h) {
        const auto k = static_cast<std::size_t>(l * n->heads + h);
        heads << l << ',' << h << ',' << num(n->headCorrelation[k]) << ','
              << num(n->meanValueNorm[k]) << ',' << n->cells << '\n';
      }
      layers << l << ',' << num(n->layerCorrelation[l]) << ',' << n->cells << '\n';
    }
    tables[kNormHeadsCsv] = heads.str();
    tables[kNormLayersCsv] = layers.str();
  }
  if (const auto& lens = s.lens) {
    std::ostringstream t;
    t << "row,name,accuracy,mean_rank_tokens,mean_entropy_nats,mean_kl_to_output_nats,positions,"
         "half_accuracy\n";
    for (int r = 0; r < static_cast<int>(lens->rows.size()); ++r) {
      const auto& row = lens->rows[static_cast<std::size_t>(r)];
      t << r << ',' << lensRowName(*lens, r) << ',' << num(row.accuracy) << ',' << num(row.meanRank)
        << ',' << num(row.meanEntropy) << ',' << num(row.meanKlToOutput) << ',' << lens->positions
        << ',' << (r == lens->halfAccuracyRow ? 1 : 0) << '\n';
    }
    tables[kLensCsv] = t.str();
  }
}

std::string beyondWeightsMarkdown(const BeyondWeightsSummaries& s) {
  std::string out;
  if (s.rollout) out += rolloutMarkdown(*s.rollout);
  if (s.norms) out += normsMarkdown(*s.norms);
  if (s.lens) out += lensMarkdown(*s.lens);
  if (s.lensSkippedNoMlmHead)
    out +=
        "\n## Logit lens at masked positions\n\nNot made: the model has no MLM head (a "
        "BertModel or RobertaModel saved without it), so there is no head to read the layers "
        "through.\n";
  return out;
}

}  // namespace attnlab::analysis
