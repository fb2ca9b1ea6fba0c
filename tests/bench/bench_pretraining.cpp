// Pretraining speed: AttnLab's engine against Python PyTorch on the same model, same
// BLAS and thread count, in one run. A benchmark, not a test: it prints figures.
// Last line: engine_vs_pytorch=<ratio> mfu=<fraction>.
#include "core/config/run_config.h"
#include "core/data/mlm_batcher.h"
#include "core/model/masked_lm.h"
#include "core/runtime/compute_environment.h"
#include "core/train/adamw.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"

#include <torch/torch.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace attnlab::core;

namespace {

struct Args {
  int layers = 4, hidden = 256, heads = 4, ffn = 1024, vocab = 8000, batch = 32, seq = 128;
  int steps = 8, warmup = 2, threads = 0;
  bool python = true;
  std::string pythonExe = "/usr/bin/python3";
  std::string script;
};

double peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

// 6 x encoder parameters x tokens (forward 2, backward 4) plus the attention products
// QK^T and PV (2 x 2 x B x T^2 x H per layer forward, x3 with backward). Embeddings, the
// MLM head and the tied output projection are not counted.
double countedFlopsPerStep(const Args& a) {
  const double h = a.hidden, f = a.ffn;
  const double perLayer = 4 * h * h + 4 * h + 2 * h * f + f + h + 4 * h;
  const double tokens = double(a.batch) * a.seq;
  const double attention = 3.0 * 4.0 * a.batch * double(a.seq) * a.seq * h * a.layers;
  return 6.0 * perLayer * a.layers * tokens + attention;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  a.script = std::string(ATTNLAB_SOURCE_DIR) + "/tests/bench/pytorch_reference.py";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (arg == "--steps")
      a.steps = value();
    else if (arg == "--threads")
      a.threads = value();
    else if (arg == "--batch")
      a.batch = value();
    else if (arg == "--seq")
      a.seq = value();
    else if (arg == "--no-python")
      a.python = false;
    else {
      std::fprintf(stderr,
                   "usage: %s [--steps N] [--threads N] [--batch N] [--seq N] [--no-python]\n",
                   argv[0]);
      return 2;
    }
  }
  const int threads = configureIntraOpThreads(a.threads);
  a.threads = threads;
  const double peak = measureMatmulGflops(1024, 10);
  std::printf(
      "config: %d layers, hidden %d, %d heads, ffn %d, vocab %d, batch %d x %d tokens, AdamW, "
      "dropout 0.1, %d threads\n",
      a.layers, a.hidden, a.heads, a.ffn, a.vocab, a.batch, a.seq, threads);
  std::printf("matmul_peak_gflops=%.1f (float32 1024x1024, best of 10)\n", peak);
  const std::string blas = loadedBlasLibrary();
  std::printf("engine BLAS: %s\n", blas.c_str());

  // The trainer's own step (core/train/train_step.h): forward through the objective
  // composer, backward, clipping without a host sync, its one finiteness read, AdamW.
  RunConfig rc;
  rc.model.layers = a.layers;
  rc.model.hiddenSize = a.hidden;
  rc.model.heads = a.heads;
  rc.model.ffnSize = a.ffn;
  rc.optimizer.clipNorm = 1.0;
  rc.optimizer.learningRate = 1e-4;
  rc.schedule.steps = a.warmup + a.steps;
  rc.schedule.warmupSteps = 0;
  rc.schedule.decay = LearningRateDecay::Constant;
  rc.train.gradientAccumulation = 1;
  const ModelConfig& mc = rc.model;
  torch::manual_seed(0);
  MaskedLanguageModel model(mc, a.vocab, 0);
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> params;
  for (const auto& p : model->named_parameters()) params.emplace_back(p.key(), p.value());
  AdamW optimizer(params, {0.9, 0.98, 1e-6, 0.01});
  const ObjectiveComposer objective(rc, GuidanceTokens{});
  TrainStep trainStep(*model, objective, optimizer, rc, c10::Device(c10::kCPU));

  MlmBatch batch;
  batch.inputIds = torch::randint(5, a.vocab, {a.batch, a.seq}, torch::kLong);
  batch.attentionMask = torch::ones({a.batch, a.seq}, torch::kBool);
  batch.labels = torch::where(torch::rand({a.batch, a.seq}) < 0.15, batch.inputIds,
                              torch::full_like(batch.inputIds, -100));
  batch.realTokens = std::int64_t(a.batch) * a.seq;
  const MicroBatchSource sameBatch = [&](std::int64_t) { return batch; };

  std::vector<double> times;
  double lastLoss = 0;
  for (int step = 0; step < a.warmup + a.steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    const StepMeasurements m = trainStep.run(step, sameBatch);
    if (!m.nonFinite.empty()) {
      std::fprintf(stderr, "%s\n", m.nonFinite.c_str());
      return 1;
    }
    if (step >= a.warmup) {
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    if (step + 1 == a.warmup + a.steps) lastLoss = m.loss.item<double>();
  }
  std::sort(times.begin(), times.end());
  const double sec = times[times.size() / 2];
  const double tokens = double(a.batch) * a.seq;
  const double flops = countedFlopsPerStep(a);
  const double engineTps = tokens / sec;
  const double mfu = flops / sec / 1e9 / peak;
  std::printf("engine  ms_per_step=%.1f tokens_per_s=%.1f gflops=%.1f peak_rss_mb=%.1f loss=%.4f\n",
              sec * 1000, engineTps, flops / sec / 1e9, peakRssMb(), lastLoss);
  std::printf("counted_gflop_per_step=%.2f (6 x encoder params x tokens + attention products)\n",
              flops / 1e9);

  double ratio = 0;
  if (a.python) {
    char cmd[1024];
    // The same BLAS library for the reference: point the loader at the engine's folder.
    const std::string blasDir = blas.substr(0, blas.find_last_of('/'));
    std::snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH=%s %s %s %d %d %d %d %d %d %d %d %d %d",
                  blasDir.c_str(), a.pythonExe.c_str(), a.script.c_str(), a.layers, a.hidden,
                  a.heads, a.ffn, a.vocab, a.batch, a.seq, a.steps, a.warmup, threads);
    std::FILE* pipe = popen(cmd, "r");
    char line[512] = {0};
    double pyMs = 0, pyTps = 0, pyRss = 0, pyLoss = 0;
    bool parsed = false;
    while (pipe != nullptr && std::fgets(line, sizeof line, pipe) != nullptr) {
      if (std::strncmp(line, "pytorch BLAS:", 13) == 0) std::printf("%s", line);
      if (std::sscanf(line, "pytorch ms_per_step=%lf tokens_per_s=%lf peak_rss_mb=%lf loss=%lf",
                      &pyMs, &pyTps, &pyRss, &pyLoss) == 4) {
        parsed = true;
      }
    }
    const int rc = pipe != nullptr ? pclose(pipe) : -1;
    if (!parsed || rc != 0) {
      std::fprintf(stderr, "bench: the Python reference failed (exit %d): %s\n", rc, cmd);
      return 1;
    }
    std::printf(
        "pytorch ms_per_step=%.1f tokens_per_s=%.1f gflops=%.1f peak_rss_mb=%.1f loss=%.4f\n", pyMs,
        pyTps, flops / (pyMs / 1000) / 1e9, pyRss, pyLoss);
    ratio = engineTps / pyTps;
  }
  std::printf("engine_vs_pytorch=%.2f mfu=%.3f\n", ratio, mfu);
  return 0;
}
