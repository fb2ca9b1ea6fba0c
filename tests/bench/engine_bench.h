#pragma once

// What the pretraining benchmarks share (bench_pretraining on the CPU, bench_gpu on a GPU):
// the model shape, the FLOP count, the engine's own training step timed on a device and
// precision, and the Python PyTorch reference (pytorch_reference.py) run in a child process.
#include "core/config/modernbert_layout.h"
#include "core/config/run_config.h"
#include "core/data/mlm_batcher.h"
#include "core/model/masked_lm.h"
#include "core/train/adamw.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"

#include <torch/cuda.h>
#include <torch/torch.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::bench {

struct ModelShape {
  int layers = 4, hidden = 256, heads = 4, ffn = 1024, vocab = 8000, batch = 32, seq = 128;
  int steps = 8, warmup = 2, threads = 0;
  /// ModernBERT's layout (docs/modern-encoders.md): Pre-LN without layer 0's attention norm,
  /// RoPE 160000/10000, a 128-token window in two of every three layers, GeGLU, no biases,
  /// no dropout. Off: BERT's (Post-LN, learned positions, GELU, dropout 0.1).
  bool modernbert = false;
};

/// The model keys of `a`'s layout.
inline void applyLayout(const ModelShape& a, core::ModelConfig& m) {
  using namespace attnlab::core;
  if (!a.modernbert) return;
  useModernBertLayout(m);
  m.ropeTheta = 160000.0;
  m.ropeThetaLocal = 10000.0;
  m.attentionWindow = 128;
  m.globalEvery = 3;
  m.layerNormEps = 1e-5;
  m.dropout = 0.0;
  m.attentionDropout = 0.0;
  m.maxPositions = std::max(m.maxPositions, a.seq);
}

struct EngineResult {
  double seconds = 0;  ///< median step
  double loss = 0;
};

inline double peakRssMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

/// 6 x encoder parameters x tokens (forward 2, backward 4) plus the attention products
/// QK^T and PV (2 x 2 x B x T^2 x H per layer forward, x3 with backward). Embeddings, the
/// MLM head and the tied output projection are not counted.
inline double countedFlopsPerStep(const ModelShape& a) {
  const double h = a.hidden, f = a.ffn;
  const double ffnMatrices = a.modernbert ? 3 : 2;  // GeGLU's Wi is two h x f matrices in one
  const double perLayer = 4 * h * h + 4 * h + ffnMatrices * h * f + f + h + 4 * h;
  const double tokens = double(a.batch) * a.seq;
  // Every layer's full T x T product, windowed ones too: the engine and SDPA both compute it
  // and mask the cells outside the window, so this is the work done, not the work needed.
  const double attention = 3.0 * 4.0 * a.batch * double(a.seq) * a.seq * h * a.layers;
  return 6.0 * perLayer * a.layers * tokens + attention;
}

/// The trainer's own step (core/train/train_step.h) on `device` in `precision`: forward
/// through the objective composer, backward, clipping without a host sync, its one
/// finiteness read, AdamW. Dropout 0.1 on hidden states and attention, as BERT.
/// `afterTiming`, when given, is handed a function that runs n more steps and then waits
/// for the device (bench_gpu profiles those).
using MoreSteps = std::function<void(int)>;
inline EngineResult timeEngineSteps(const ModelShape& a, c10::Device device,
                                    core::Precision precision,
                                    const std::function<void(const MoreSteps&)>& afterTiming = {}) {
  using namespace attnlab::core;
  RunConfig rc;
  rc.model.layers = a.layers;
  rc.model.hiddenSize = a.hidden;
  rc.model.heads = a.heads;
  rc.model.ffnSize = a.ffn;
  applyLayout(a, rc.model);
  rc.optimizer.clipNorm = 1.0;
  rc.optimizer.learningRate = 1e-4;
  rc.schedule.steps = a.warmup + a.steps;
  rc.schedule.warmupSteps = 0;
  rc.schedule.decay = LearningRateDecay::Constant;
  rc.train.gradientAccumulation = 1;
  rc.train.precision = precision;
  torch::manual_seed(0);
  MaskedLanguageModel model(rc.model, a.vocab, 0);
  model->to(device);
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> params;
  for (const auto& p : model->named_parameters()) params.emplace_back(p.key(), p.value());
  AdamW optimizer(params, {0.9, 0.98, 1e-6, 0.01});
  const ObjectiveComposer objective(rc, GuidanceTokens{});
  TrainStep trainStep(*model, objective, optimizer, rc, device);

  MlmBatch batch;
  batch.inputIds = torch::randint(5, a.vocab, {a.batch, a.seq}, torch::kLong);
  batch.attentionMask = torch::ones({a.batch, a.seq}, torch::kBool);
  batch.labels = torch::where(torch::rand({a.batch, a.seq}) < 0.15, batch.inputIds,
                              torch::full_like(batch.inputIds, -100));
  batch.realTokens = std::int64_t(a.batch) * a.seq;
  const MicroBatchSource sameBatch = [&](std::int64_t) { return batch; };

  std::vector<double> times;
  EngineResult r;
  for (int step = 0; step < a.warmup + a.steps; ++step) {
    const auto t0 = std::chrono::steady_clock::now();
    const StepMeasurements m = trainStep.run(step, sameBatch);
    if (!m.nonFinite.empty()) throw std::runtime_error(m.nonFinite);
    if (device.is_cuda()) torch::cuda::synchronize();  // a step's time is its kernels' time
    if (step >= a.warmup)
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (step + 1 == a.warmup + a.steps) r.loss = m.loss.item<double>();
  }
  std::sort(times.begin(), times.end());
  r.seconds = times[times.size() / 2];
  if (afterTiming) {
    afterTiming([&](int n) {
      for (int i = 0; i < n; ++i) trainStep.run(a.warmup + a.steps + i, sameBatch);
      if (device.is_cuda()) torch::cuda::synchronize();
    });
  }
  return r;
}

/// How to run pytorch_reference.py: interpreter, attention mode, device and precision.
struct ReferenceRun {
  std::string python;
  std::string script;
  const char* mode = "eager";     ///< eager | compile
  const char* device = "cpu";     ///< cpu | cuda
  const char* dtype = "float32";  ///< float32 | bf16 (autocast)
  const char* model = "bert";     ///< bert | modernbert (transformers' ModernBertForMaskedLM)
  std::string env;                ///< prefix, e.g. LD_LIBRARY_PATH=...
};

/// Runs the reference; prints its line and returns its tokens/s, or 0 when it failed
/// (said on stderr).
inline double runReference(const ModelShape& a, const ReferenceRun& run, double flops) {
  char cmd[2048];
  std::snprintf(cmd, sizeof cmd, "%s %s %s %d %d %d %d %d %d %d %d %d %d %s %s %s %s",
                run.env.c_str(), run.python.c_str(), run.script.c_str(), a.layers, a.hidden,
                a.heads, a.ffn, a.vocab, a.batch, a.seq, a.steps, a.warmup, a.threads, run.mode,
                run.device, run.dtype, run.model);
  std::FILE* pipe = popen(cmd, "r");
  char line[512] = {0};
  double ms = 0, tps = 0, rss = 0, loss = 0;
  bool parsed = false;
  std::string version;
  while (pipe != nullptr && std::fgets(line, sizeof line, pipe) != nullptr) {
    if (std::strncmp(line, "pytorch BLAS:", 13) == 0 || std::strncmp(line, "profile ", 8) == 0 ||
        std::strncmp(line, "  ", 2) == 0)
      std::printf("%s", line);  // the BLAS it loaded; bench_gpu --profile's summary
    if (std::sscanf(line, "pytorch ms_per_step=%lf tokens_per_s=%lf peak_rss_mb=%lf loss=%lf", &ms,
                    &tps, &rss, &loss) == 4)
      parsed = true;
    else if (std::strncmp(line, "pytorch ", 8) == 0 && std::strchr(line, '=') == nullptr)
      version = std::string(line + 8, std::strcspn(line + 8, "\n"));
  }
  const int rc = pipe != nullptr ? pclose(pipe) : -1;
  if (!parsed || rc != 0) {
    std::fprintf(stderr, "bench: the Python reference failed (exit %d): %s\n", rc, cmd);
    return 0;
  }
  std::printf(
      "pytorch [%s] ms_per_step=%.1f tokens_per_s=%.1f gflops=%.1f peak_rss_mb=%.1f "
      "loss=%.4f\n",
      version.c_str(), ms, tps, flops / (ms / 1000) / 1e9, rss, loss);
  return tps;
}

}  // namespace attnlab::bench
