#include "figures/figure_catalog.h"

#include "figures/figure_errors.h"

namespace attnlab::figures {
namespace {

std::vector<FigureSpec> buildCatalog() {
  std::vector<FigureSpec> c;
  c.push_back({.name = "loss-curves",
               .title = "Training and validation MLM loss",
               .reproduces = "the loss curves of every paper (no single figure); runs overlaid",
               .inputs = "run log of each run: scalars train/loss and eval/loss",
               .units = "x: optimiser step; y: MLM cross-entropy (nats), raw logged values",
               .source = FigureSource::RunLog,
               .minRuns = 1,
               .maxRuns = 0});
  c.push_back({.name = "guidance-fig3",
               .title = "MLM loss with and without attention guidance",
               .reproduces = "Attention guidance (Deshpande & Narasimhan 2020) Fig. 3",
               .inputs = "run log of each run: scalar train/loss (the MLM loss alone; "
                         "train/total_loss adds the guidance term); a run that logs "
                         "guidance/loss is guided; at least one guided run",
               .units = "x: optimiser step; y: MLM cross-entropy (nats), raw logged values",
               .source = FigureSource::RunLog,
               .minRuns = 1,
               .maxRuns = 0});
  c.push_back({.name = "asa-fig5",
               .title = "ASA masking proportion per layer over training",
               .reproduces = "ASA (Wu et al. 2023) Fig. 5",
               .inputs = "run log: series asa/mask_proportion [layers] (attention.asa.enabled)",
               .units = "x: optimiser step; y: share of real query-key cells the adversary "
                        "masks (fraction), one line per layer",
               .source = FigureSource::RunLog});
  c.push_back({.name = "sesame-fig4",
               .title = "SesameBERT layer weights over training",
               .reproduces = "SesameBERT (Su & Cheng 2019) Fig. 4",
               .inputs = "run log: series squeeze/weights [layers] (attention.squeeze.enabled)",
               .units = "x: optimiser step; y: excitation weight s_l (sigmoid output, 0 to 1), "
                        "one line per layer",
               .source = FigureSource::RunLog});
  // The attention-health series of the run log (health_figures.h; log.health, on by default).
  c.push_back({.name = "health-sink-rate",
               .title = "Attention sink rate per token class over training",
               .reproduces = "Gu et al. 2025 (\"When attention sink emerges in language "
                             "models\", ICLR 2025): sink rate against training step",
               .inputs = "run log: series health/sink_rate [5 token classes] (log.health = "
                         "true, the default)",
               .units = "x: optimiser step; y: sink rate, the share of heads whose mean "
                        "attention mass on the class's keys exceeds log.health_sink_epsilon "
                        "(0 to 1); one line per class: first, cls, sep, punctuation, other",
               .source = FigureSource::RunLog,
               .widthPx = 800,
               .heightPx = 500});
  c.push_back({.name = "health-massive",
               .title = "Massive activations per layer",
               .reproduces = "Sun et al. 2024 (\"Massive activations in large language "
                             "models\", COLM 2024) Fig. 1",
               .inputs = "run log: series health/massive_value [L, 3] and health/median_abs "
                         "[L] (log.health = true) at the last logged step, or with --step S "
                         "the latest health row at or before S",
               .units = "x: layer (its output, the residual stream); y: |h| on a log scale, "
                        "bars: top-1, top-2, top-3 and median |h| over the probe batch's real "
                        "tokens and dimensions",
               .source = FigureSource::RunLog,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 550});
  c.push_back({.name = "health-entropy-logits",
               .title = "Minimum attention entropy and largest logit per head over training",
               .reproduces = "Zhai et al. 2023 (\"Stabilizing transformer training by "
                             "preventing attention entropy collapse\", ICML 2023): entropy "
                             "collapse and logit growth over training",
               .inputs = "run log: series health/entropy_min and health/logit_max [L, H] "
                         "(log.health = true)",
               .units = "x: optimiser step; left: minimum row entropy over the probe batch's "
                        "real queries (nats); right: S_max, the largest pre-softmax attention "
                        "score over real query-key pairs; one line per head (L<l>H<h>; "
                        "coloured by layer beyond 8 heads)",
               .source = FigureSource::RunLog,
               .widthPx = 1100,
               .heightPx = 500});
  c.push_back({.name = "entropy-violins",
               .title = "Attention entropy per head",
               .reproduces = "RealFormer (He et al. 2021) Fig. 4",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json "
                         "(attnlab-cli analyze): per-head entropy distributions",
               .units = "rows: layers; x: heads ordered by median; y: row entropy (nats); "
                        "colour: RealFormer's classes",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 700});
  c.push_back({.name = "jsd-violins",
               .title = "Jensen-Shannon divergence between adjacent layers per head",
               .reproduces = "RealFormer (He et al. 2021) Fig. 6",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json "
                         "(attnlab-cli analyze): per-head adjacent-layer JSD distributions",
               .units = "rows: layer pairs; x: heads ordered by median; y: JSD (bits, or nats "
                        "when the report used --jsd-unit nats); colour: RealFormer's classes",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 700});
  c.push_back({.name = "coref-heads",
               .title = "Coreference: antecedent accuracy per head",
               .reproduces = "Clark et al. 2019, Sec. 4.3: coreference (antecedent selection) "
                             "per head, with baselines",
               .inputs = "coreference probe report <run>/analysis/coref-step-S/coref.json "
                         "(attnlab-cli probe coref): per-head accuracy and baselines",
               .units = "rows: layers; columns: heads; colour: accuracy (fraction of "
                        "mentions); bars: best head per layer; baselines as reference lines",
               .source = FigureSource::CorefReport,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 600});
  // Figures that compare runs on one scale (comparison_figures.cpp).
  c.push_back({.name = "realformer-fig4",
               .title = "Attention entropy per head, runs side by side",
               .reproduces = "RealFormer (He et al. 2021) Fig. 4: Post-LN vs RealFormer",
               .inputs = "analysis report of each run (attnlab-cli analyze): per-head entropy "
                         "distributions; runs with the same number of heads",
               .units = "rows: layers, one per run; x: heads ordered by median; y: row entropy "
                        "(nats), one scale for all runs; colour: RealFormer's classes",
               .source = FigureSource::AnalysisReport,
               .minRuns = 1,
               .maxRuns = 4,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 700});
  c.push_back({.name = "realformer-fig6",
               .title = "Adjacent-layer Jensen-Shannon divergence per head, runs side by side",
               .reproduces = "RealFormer (He et al. 2021) Fig. 6: Post-LN vs RealFormer",
               .inputs = "analysis report of each run (attnlab-cli analyze): per-head "
                         "adjacent-layer JSD; runs with the same heads and JSD unit",
               .units = "rows: layer pairs, one per run; x: heads ordered by median; y: JSD "
                        "(bits, or nats with --jsd-unit nats), one scale for all runs",
               .source = FigureSource::AnalysisReport,
               .minRuns = 1,
               .maxRuns = 4,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 700});
  c.push_back({.name = "guidance-table8",
               .title = "Coreference: best head and mean accuracy per run",
               .reproduces = "Attention guidance (Deshpande & Narasimhan 2020) Table 8",
               .inputs = "coreference probe report of each run (attnlab-cli probe coref)",
               .units = "x: runs, labelled with their best head; y: antecedent accuracy "
                        "(fraction of mentions); bars: best head and mean over all heads",
               .source = FigureSource::CorefReport,
               .minRuns = 1,
               .maxRuns = 0,
               .usesStep = true,
               .widthPx = 700,
               .heightPx = 500});
  // The head figures of an analysis report (head_figures.h): Clark et al.'s per-head
  // behaviours and head map, guidance conformity, statistics over training.
  c.push_back({.name = "clark-fig2",
               .title = "Attention to special tokens per head, by layer",
               .reproduces = "Clark et al. 2019 (\"What does BERT look at?\") Fig. 2",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json "
                         "(attnlab-cli analyze): per-head attention_to",
               .units = "panels: first token, separator, periods, previous, next, self; x: "
                        "layer; y: mean attention (fraction of the row's mass), one point per "
                        "head, colour: layer",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 700});
  c.push_back({.name = "head-jsd-matrix",
               .title = "Jensen-Shannon divergence between every two heads",
               .reproduces = "Clark et al. 2019, Sec. 6 (the head distances behind Fig. 6)",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: pairwise_jsd "
                         "(attnlab-cli analyze --pairwise N, N > 0; default 64)",
               .units = "rows and columns: heads (layer, head); colour: mean JSD between the "
                        "two heads' attention rows (bits, or nats with --jsd-unit nats)",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 900,
               .heightPx = 800});
  c.push_back({.name = "head-jsd-mds",
               .title = "Heads embedded in 2-D by their Jensen-Shannon divergences",
               .reproduces = "Clark et al. 2019 Fig. 6 (multidimensional scaling of the heads)",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: pairwise_jsd "
                         "(attnlab-cli analyze --pairwise N, N > 0), classical MDS",
               .units = "x, y: the two classical-MDS axes (JSD units, equal scale); one point "
                        "per head, colour: layer",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 800,
               .heightPx = 700});
  c.push_back({.name = "guidance-conformity",
               .title = "Distance of each head to the attention-guidance patterns",
               .reproduces = "Attention guidance (Deshpande & Narasimhan 2020): conformity of "
                             "heads to its patterns (no single figure)",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: per-head "
                         "guidance_conformity total_variation",
               .units = "panels: patterns next, prev, first, separator, period; rows: layers; "
                        "columns: heads; colour: mean total-variation distance (0 = follows "
                        "the pattern, 1 = disjoint); n/a where the pattern never applied",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 1000,
               .heightPx = 650});
  c.push_back({.name = "training-statistics",
               .title = "Per-head median entropy and JSD over training",
               .reproduces = "RealFormer (He et al. 2021) Figs. 4 and 6's medians followed "
                             "over training steps",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: over_training "
                         "(the log's attention snapshots, or attnlab-cli analyze "
                         "--over-checkpoints)",
               .units = "x: optimiser step; y: median row entropy (nats) and median JSD to the "
                        "layer below (bits or nats); faint: heads, bold: layer means, colour: "
                        "layer",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 550});
  // The corpus summaries beyond the weights (beyond_figures.h).
  c.push_back({.name = "rollout-spread",
               .title = "Attention rollout per layer: spread, diagonal mass, entropy",
               .reproduces = "no paper figure: AttnLab's summary of Abnar & Zuidema 2020's "
                             "rollout over the evaluation set",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: "
                         "beyond_weights.rollout (attnlab-cli analyze, without --no-rollout)",
               .units = "x: layer; y: mean over real query rows of sum_j R_ij |i - j| "
                        "(tokens), R_ii (0..1) and the row entropy (nats); one line per run",
               .source = FigureSource::AnalysisReport,
               .minRuns = 1,
               .maxRuns = 4,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 450});
  c.push_back({.name = "norm-weight-correlation",
               .title = "Attention weights against norm-based attention per head",
               .reproduces = "no paper figure: Kobayashi et al. 2020's comparison of weights "
                             "and norms (their Sec. 4) as one correlation per head",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: "
                         "beyond_weights.norms (attnlab-cli analyze, without --no-norms)",
               .units = "rows: layers; columns: heads; left: Pearson r of alpha_ij,h and "
                        "||alpha_ij,h f_h(x_j)|| over real cells (-1..1), layer-level r in the "
                        "panel title; right: mean ||f_h(x_j)|| divided by its largest value",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 1000,
               .heightPx = 500});
  c.push_back({.name = "logit-lens",
               .title = "Logit lens per layer at masked positions",
               .reproduces = "no paper figure: the logit lens (nostalgebraist 2020) for a "
                             "masked language model over the evaluation set",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: "
                         "beyond_weights.lens (attnlab-cli analyze, without --no-lens)",
               .units = "x: layer (SesameBERT: the output row last); y: accuracy (fraction of "
                        "masked positions), mean rank of the masked token (tokens), "
                        "KL(output || layer) (nats); one line per run; one run: a vertical "
                        "line at the first layer with half the output's accuracy",
               .source = FigureSource::AnalysisReport,
               .minRuns = 1,
               .maxRuns = 4,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 450});
  // The heads' analysis (pruning_figures.h).
  c.push_back({.name = "head-importance",
               .title = "Head importance and single-head ablation",
               .reproduces = "Michel et al. 2019's head importance (their Sec. 4.1) and the "
                             "single-head ablation of their Table 1, per layer x head",
               .inputs = "analysis report <run>/analysis/step-S/analysis.json: head_analysis "
                         "(attnlab-cli analyze --heads)",
               .units = "rows: layers; columns: heads; left: E_x |dL/dxi_h| divided by its "
                        "layer's L2 norm (0..1); right: MLM loss with the head masked minus the "
                        "full model's, divided by the largest such change (nats in the title)",
               .source = FigureSource::AnalysisReport,
               .usesStep = true,
               .widthPx = 1000,
               .heightPx = 500});
  c.push_back({.name = "head-pruning",
               .title = "Pruning heads: MLM loss and accuracy against heads masked",
               .reproduces = "Michel et al. 2019 Fig. 3 (pruning by importance) with random "
                             "orders as the baseline",
               .inputs =
                   "analysis report <run>/analysis/step-S/analysis.json: head_analysis.pruning "
                   "(attnlab-cli analyze --heads)",
               .units = "x: heads masked (% of all; never a layer's last); y: MLM loss at "
                        "masked positions (nats) and accuracy (fraction); bold: importance "
                        "order, faint: random orders (seeds in the legend)",
               .source = FigureSource::AnalysisReport,
               .minRuns = 1,
               .maxRuns = 4,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 450});
  // Two runs' heads compared (head_comparison_figures.h).
  c.push_back({.name = "heads-matching",
               .title = "Heads matched across two runs by the JSD of their attention",
               .reproduces = "no paper figure: Clark et al. 2019's head-to-head JSD across two "
                             "models, with the Hungarian matching per layer",
               .inputs = "<run A>/analysis/compare-step-SA-vs-<run B>-step-SB/"
                         "heads_comparison.json (attnlab-cli compare A B --heads)",
               .units = "one panel per layer; rows: heads of run A, columns: heads of run B; "
                        "mean JSD of their attention rows on the same inputs (bits, 0..1); the "
                        "title: mean JSD of the matched and of the same-index pairs, the matching",
               .source = FigureSource::AnalysisReport,
               .minRuns = 2,
               .maxRuns = 2,
               .usesStep = true,
               .widthPx = 1100,
               .heightPx = 600});
  c.push_back({.name = "layer-cka",
               .title = "Linear CKA between the layers of two runs",
               .reproduces = "Kornblith et al. 2019's layer-by-layer CKA heatmaps (their Fig. 2 "
                             "style) between two runs",
               .inputs = "<run A>/analysis/compare-step-SA-vs-<run B>-step-SB/"
                         "heads_comparison.json (attnlab-cli compare A B --heads)",
               .units = "rows: run A's embeddings and layers; columns: run B's; linear CKA of "
                        "their representations of the same tokens (0..1)",
               .source = FigureSource::AnalysisReport,
               .minRuns = 2,
               .maxRuns = 2,
               .usesStep = true,
               .widthPx = 800,
               .heightPx = 650});
  return c;
}

}  // namespace

const std::vector<FigureSpec>& figureCatalog() {
  static const std::vector<FigureSpec> catalog = buildCatalog();
  return catalog;
}

const FigureSpec* findFigure(std::string_view name) {
  for (const auto& spec : figureCatalog())
    if (spec.name == name) return &spec;
  return nullptr;
}

const FigureSpec& figureNamed(std::string_view name) {
  if (const FigureSpec* spec = findFigure(name)) return *spec;
  std::string names;
  for (const auto& spec : figureCatalog()) names += (names.empty() ? "" : ", ") + spec.name;
  throw FigureError(std::string(name), "no such figure (figures: " + names + ")");
}

std::string runCountText(const FigureSpec& spec) {
  const auto runs = [](int n) { return std::to_string(n) + (n == 1 ? " run" : " runs"); };
  if (spec.maxRuns == 0) return std::to_string(spec.minRuns) + " or more runs";
  if (spec.maxRuns == spec.minRuns) return runs(spec.minRuns);
  return std::to_string(spec.minRuns) + " to " + runs(spec.maxRuns);
}

std::string sourceText(FigureSource source) {
  switch (source) {
    case FigureSource::RunLog:
      return "run log";
    case FigureSource::AnalysisReport:
      return "analysis report";
    case FigureSource::CorefReport:
      return "coreference probe report";
  }
  return {};
}

}  // namespace attnlab::figures
