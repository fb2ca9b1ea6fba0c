// What the attention-health stream costs a run (issue 41): the trainer's own step timed as
// bench_pretraining times it, then one health measurement of the probe batch as
// HealthStream::write makes it (hook-point forward pass, HealthAccumulator, spectral norms),
// both on the same model in one process. The stream runs every log.health_every steps
// (default: every train.log_every = 10), so its share of a step is
//   health_overhead = health_seconds / (every x step_seconds)   (target: at most 0.03).
//
//   bench_health [tiny|base] [every] [threads]
//   bench_health --run RUN_DIR [threads]
//
// The second form times the offline report (attnlab-cli health's job, analysis/jobs/
// health_job.h) over the run's whole validation split against one evaluation pass over the
// same sequences (the MLM loss with 15% of the real positions masked, as the trainer's
// evaluation runs it), both from the run's latest checkpoint, in one process:
//   health_vs_eval = the job's health pass (its "evaluation set" and "spectral norms" phases)
//                    / the evaluation pass                              (target: at most 1.5)
// and health_job_vs_eval, the whole job (loading, the set, writing the report) over the same.
//
// tiny: the demo's shape (2 x 128, 2 heads, FFN 512, 8,000 pieces, batch 32 x 64); base: a
// 4 x 256 encoder at sequence 128 (engine_bench.h's default shape). The probe batch is the
// snapshots' default: 2 sequences of the run's length. Prints one line per figure.
#include "tests/bench/engine_bench.h"

#include "analysis/jobs/health_job.h"
#include "analysis/runs/evaluation_set.h"
#include "analysis/runs/run_selection.h"
#include "core/health/attention_spectral.h"
#include "core/inspect/attention_inspector.h"
#include "core/inspect/gated_loss.h"
#include "core/train/health_stream.h"

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

using namespace attnlab;

namespace {

bench::ModelShape shapeNamed(const std::string& name) {
  bench::ModelShape a;
  if (name == "tiny") {
    a.layers = 2;
    a.hidden = 128;
    a.heads = 2;
    a.ffn = 512;
    a.batch = 32;
    a.seq = 64;
  }
  a.steps = 10;
  a.warmup = 2;
  return a;
}

/// Median seconds of one health measurement (probeHealth + qkSpectralNorms), as the stream
/// makes it, over `repeats` after one warm-up.
double timeHealth(const bench::ModelShape& a, int repeats) {
  core::ModelConfig mc;
  mc.layers = a.layers;
  mc.hiddenSize = a.hidden;
  mc.heads = a.heads;
  mc.ffnSize = a.ffn;
  torch::manual_seed(0);
  core::MaskedLanguageModel model(mc, a.vocab, 0);
  model->train();
  const int probe = 2;
  const auto ids = torch::randint(5, a.vocab, {probe, a.seq}, torch::kLong);
  const auto mask = torch::ones({probe, a.seq}, torch::kBool);
  const auto classes = torch::randint(1, core::kSinkClasses, {probe, a.seq}, torch::kLong);
  std::vector<double> times;
  for (int i = 0; i <= repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto h = core::probeHealth(*model, ids, mask, classes, core::HealthSettings{});
    const auto sigma = core::qkSpectralNorms(*model);
    if (!h.logitMax.defined() || !sigma.defined()) throw std::runtime_error("no health");
    if (i > 0)
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// One evaluation pass over the validation split of `selected`: the MLM loss of every batch
/// with 15% of its real, non-special positions masked (seeded), no gradients.
double timeEvaluationPass(const analysis::SelectedCheckpoint& selected, std::int64_t& sequences) {
  core::AttentionInspector inspector(selected.checkpoint);
  analysis::EvaluationSet set(inspector, selected.runDir, analysis::EvaluationSpec{{}, 0, 16});
  const auto mask = inspector.tokenizer().specialIds().mask;
  const auto pad = inspector.tokenizer().specialIds().pad;
  torch::manual_seed(0);
  analysis::EvaluationBatch batch;
  double seconds = 0;
  sequences = 0;
  while (set.next(batch)) {
    auto ids = batch.ids.clone();
    const auto chosen = torch::rand(ids.sizes()).lt(0.15).logical_and(ids.ne(pad));
    core::MaskedTargets masked{chosen.reshape({-1}).nonzero().squeeze(1), {}};
    masked.targets = ids.reshape({-1}).index_select(0, masked.positions);
    ids.masked_fill_(chosen, mask);
    const auto t0 = std::chrono::steady_clock::now();
    const auto loss = inspector.gatedLoss(ids, masked, at::Tensor(), false);
    seconds += secondsSince(t0);
    if (loss.count <= 0) throw std::runtime_error("an evaluation batch without masked positions");
    sequences += ids.size(0);
  }
  return seconds;
}

int benchRun(const std::filesystem::path& run) {
  const auto selected = analysis::selectCheckpoint(run);
  std::int64_t sequences = 0;
  const double eval = timeEvaluationPass(selected, sequences);
  std::map<std::string, double> phaseSeconds;
  std::string phase;
  auto phaseStart = std::chrono::steady_clock::now();
  const analysis::AnalysisProgress progress = [&](const std::string& p, std::int64_t,
                                                  std::int64_t) {
    if (p == phase) return;
    if (!phase.empty()) phaseSeconds[phase] += secondsSince(phaseStart);
    phase = p;
    phaseStart = std::chrono::steady_clock::now();
  };
  const auto out = std::filesystem::temp_directory_path() / "attnlab-bench-health";
  std::filesystem::remove_all(out);
  const auto t0 = std::chrono::steady_clock::now();
  analysis::HealthJobOptions options;
  options.run = run;
  const auto result = analysis::runHealthJob(options, out, progress);
  const double job = secondsSince(t0);
  if (!phase.empty()) phaseSeconds[phase] += secondsSince(phaseStart);
  std::filesystem::remove_all(out);
  const double pass =
      phaseSeconds[analysis::kPhaseEvaluationSet] + phaseSeconds[analysis::kPhaseSpectralNorms];
  std::printf("run=%s step=%lld sequences=%lld (job: %lld) threads=%d\n", run.c_str(),
              static_cast<long long>(selected.step), static_cast<long long>(sequences),
              static_cast<long long>(result.report.sequences), torch::get_num_threads());
  std::printf("eval_pass_s=%.3f health_pass_s=%.3f health_job_s=%.3f\n", eval, pass, job);
  std::printf("health_vs_eval=%.2f (target <= 1.5) health_job_vs_eval=%.2f\n", pass / eval,
              job / eval);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--run") {
    if (argc > 3) torch::set_num_threads(std::atoi(argv[3]));
    return benchRun(argv[2]);
  }
  const std::string name = argc > 1 ? argv[1] : "tiny";
  const int every = argc > 2 ? std::atoi(argv[2]) : 10;
  bench::ModelShape a = shapeNamed(name);
  a.threads = argc > 3 ? std::atoi(argv[3]) : 0;
  if (a.threads > 0) torch::set_num_threads(a.threads);
  std::printf("shape=%s layers=%d hidden=%d heads=%d batch=%d seq=%d threads=%d every=%d\n",
              name.c_str(), a.layers, a.hidden, a.heads, a.batch, a.seq, torch::get_num_threads(),
              every);
  const auto step = bench::timeEngineSteps(a, torch::kCPU, core::Precision::Float32);
  const double health = timeHealth(a, 9);
  std::printf("step_s=%.4f health_s=%.4f\n", step.seconds, health);
  std::printf("health_overhead=%.4f (health_s / (every x step_s); target <= 0.03)\n",
              health / (every * step.seconds));
  return 0;
}
