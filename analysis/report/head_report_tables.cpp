#include "analysis/report/head_report_tables.h"

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
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string curveName(const PruningCurve& c) {
  return c.order == "random" ? "random (seed " + std::to_string(c.seed) + ")" : c.order;
}

std::string pruningMarkdown(const HeadReport& r) {
  std::ostringstream out;
  out << "\nPruning: heads masked in order of increasing normalised importance, and in "
         "random orders (the seeds printed), never the last head of a layer; MLM loss (nats) "
         "at each point.\n\n| masked | share |";
  for (const auto& c : r.pruning) out << ' ' << curveName(c) << " |";
  out << "\n|---|---|";
  for (std::size_t i = 0; i < r.pruning.size(); ++i) out << "---|";
  out << '\n';
  if (r.pruning.empty()) return out.str();
  for (std::size_t p = 0; p < r.pruning.front().points.size(); ++p) {
    const auto& first = r.pruning.front().points[p];
    out << "| " << first.masked << " | " << fixed(100 * first.share, 0) << "% |";
    for (const auto& c : r.pruning) out << ' ' << fixed(c.points[p].score.loss) << " |";
    out << '\n';
  }
  return out.str();
}

}  // namespace

void addHeadReportCsv(std::map<std::string, std::string>& tables, const HeadReport& r) {
  std::ostringstream heads;
  heads << "layer,head,importance_raw,importance_normalised";
  if (!r.ablation.empty()) heads << ",ablated_loss_nats,ablated_accuracy,ablated_loss_delta_nats";
  heads << '\n';
  for (int l = 0; l < r.layers; ++l) {
    for (int h = 0; h < r.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * r.heads + h);
      heads << l << ',' << h << ',' << num(r.importanceRaw[k]) << ',' << num(r.importance[k]);
      if (!r.ablation.empty()) {
        const auto& a = r.ablation[k];
        heads << ',' << num(a.loss) << ',' << num(a.accuracy) << ',' << num(a.loss - r.full.loss);
      }
      heads << '\n';
    }
  }
  tables[kHeadImportanceCsv] = heads.str();
  if (r.pruning.empty()) return;
  std::ostringstream pruning;
  pruning << "order,seed,masked,share,loss_nats,accuracy\n";
  for (const auto& c : r.pruning)
    for (const auto& p : c.points)
      pruning << c.order << ',' << c.seed << ',' << p.masked << ',' << num(p.share) << ','
              << num(p.score.loss) << ',' << num(p.score.accuracy) << '\n';
  tables[kHeadPruningCsv] = pruning.str();
}

std::string headReportMarkdown(const HeadReport& r) {
  std::ostringstream out;
  out << "\n## Heads: importance, ablation and pruning\n\n"
      << "Michel et al. (2019): a gate xi_h on each head's output; importance I_h = E_x "
         "|dL(x)/dxi_h| over "
      << r.sequences << " sequences (" << r.positions
      << " masked positions, the logit lens's masking, seed " << r.maskSeed
      << "), normalised per layer by its L2 norm. The full model: loss " << fixed(r.full.loss)
      << " nats, accuracy " << fixed(100 * r.full.accuracy, 1) << "%.\n\n"
      << "| layer | head | importance (normalised) | raw |"
      << (r.ablation.empty() ? "" : " loss with the head masked (delta) |") << "\n|---|---|---|---|"
      << (r.ablation.empty() ? "" : "---|") << '\n';
  for (int l = 0; l < r.layers; ++l) {
    for (int h = 0; h < r.heads; ++h) {
      const auto k = static_cast<std::size_t>(l * r.heads + h);
      out << "| " << l << " | " << h << " | " << fixed(r.importance[k]) << " | "
          << num(r.importanceRaw[k]) << " |";
      if (!r.ablation.empty()) {
        const double delta = r.ablation[k].loss - r.full.loss;
        out << ' ' << fixed(r.ablation[k].loss) << " (" << (delta >= 0 ? "+" : "")
            << fixed(delta, 4) << ") |";
      }
      out << '\n';
    }
  }
  if (!r.pruning.empty()) out << pruningMarkdown(r);
  return out.str();
}

}  // namespace attnlab::analysis
