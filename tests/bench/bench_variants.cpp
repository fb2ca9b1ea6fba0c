// The cost of the attention mechanisms (the five papers' and today's): one full training step
// (objective, backward, gradient clipping, AdamW) per mechanism on the engine benchmark's model (4
// layers, hidden 256, 4 heads, FFN 1024, vocabulary 8,000, batch 32 x 128, dropout 0.1), against
// the plain encoder. A benchmark, not a test: it prints figures.
//
// The step is the trainer's: ObjectiveComposer::compute, backward on the total loss,
// clipGradNorm, the finiteness read, AdamW::step. Every mechanism trains on the same fixed
// synthetic batch. The mechanisms run interleaved, one step each per round, with the
// baseline at the start and at the end of every round, so a noisy shared machine slows
// them alike; a mechanism's ratio is the median over rounds of its step time divided by
// the mean of that round's two baseline steps.
// Last line: worst_overhead=<name>:<ratio>, the mechanism with the highest ratio / target.
#include "core/config/config_loader.h"
#include "core/config/run_config.h"
#include "core/model/masked_lm.h"
#include "core/model/variants/attention_adversary.h"
#include "core/objectives/asa_objective.h"
#include "core/runtime/compute_environment.h"
#include "core/train/adamw.h"
#include "core/train/grad_clip.h"
#include "core/train/objective_composer.h"

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace attnlab::core;

namespace {

struct Args {
  int steps = 5, warmup = 2, threads = 0;
  bool breakdown = false;
  std::string only;     // comma-separated mechanism names (baseline always runs)
  std::string profile;  // when set: profiled steps per mechanism, <profile>-<name>.json
  int profileSteps = 1;
  bool microAsa = false;  // time ASA's own parts in isolation and exit
};

constexpr int kVocab = 8000;
constexpr int kBatch = 32;
constexpr int kSequence = 128;
constexpr std::int64_t kPeriodId = 5;  // stands in for "." in [Period] guidance

RunConfig benchConfig() {
  RunConfig c;
  c.model.layers = 4;
  c.model.hiddenSize = 256;
  c.model.heads = 4;
  c.model.ffnSize = 1024;
  c.model.dropout = 0.1;
  c.model.attentionDropout = 0.1;
  c.data.sequenceLength = kSequence;
  c.tokenizer.vocabSize = kVocab;
  c.train.batchSize = kBatch;
  c.optimizer.clipNorm = 1.0;
  c.schedule.steps = 100000;  // guidance's alpha(t) stays near alpha_0
  c.schedule.warmupSteps = 0;
  return c;
}

struct Mechanism {
  std::string name;
  double target = 0.0;  // ratio to baseline; 0 = none
  std::function<void(RunConfig&)> configure;
};

std::vector<Mechanism> mechanisms() {
  return {
      {"baseline", 0.0, [](RunConfig&) {}},
      {"realformer", 1.05, [](RunConfig& c) { c.attention.residual = ResidualScores::Sum; }},
      {"temperature", 1.03, [](RunConfig& c) { c.attention.temperature = true; }},
      {"guidance", 1.10,
       [](RunConfig& c) {
         c.attention.guidance.enabled = true;  // lambda 0.5, frobenius (defaults)
       }},
      {"blur+se", 1.10,
       [](RunConfig& c) {
         c.attention.blur.target = BlurTarget::Context;
         c.attention.blur.window = 3;
         c.attention.blur.sigma = 0.3;
         c.attention.squeeze.enabled = true;
       }},
      {"conv2d", 1.20, [](RunConfig& c) { c.attention.conv = ConvAttention::TwoD; }},
      {"conv1d", 0.0, [](RunConfig& c) { c.attention.conv = ConvAttention::OneD; }},
      {"position", 0.0,
       [](RunConfig& c) {
         c.attention.position.mode = PositionMode::Relative;
         c.model.positionEmbeddings = false;
       }},
      {"asa", 2.2, [](RunConfig& c) { c.attention.asa.enabled = true; }},
      // Today's mechanisms (issue 42): targets from the issue.
      {"gate-head", 1.10, [](RunConfig& c) { c.attention.outputGate = OutputGate::Head; }},
      {"gate-element", 1.10, [](RunConfig& c) { c.attention.outputGate = OutputGate::Element; }},
      {"qk-norm-layer", 1.10, [](RunConfig& c) { c.attention.qkNorm = QkNorm::Layer; }},
      {"qk-norm-rms", 1.10, [](RunConfig& c) { c.attention.qkNorm = QkNorm::Rms; }},
      {"softmax1", 1.10, [](RunConfig& c) { c.attention.normalizer = Normalizer::Softmax1; }},
      // No target in the issue: measured and explained in docs/variants.md.
      {"softpick", 0.0, [](RunConfig& c) { c.attention.normalizer = Normalizer::Softpick; }},
      {"sigmoid", 0.0, [](RunConfig& c) { c.attention.normalizer = Normalizer::Sigmoid; }},
      {"clipped", 0.0, [](RunConfig& c) { c.attention.normalizer = Normalizer::Clipped; }},
      {"differential", 0.0, [](RunConfig& c) { c.attention.differential = true; }},
  };
}

// One mechanism's model, objective and optimiser, built as the trainer builds them.
struct Runner {
  Mechanism mechanism;
  RunConfig config;
  MaskedLanguageModel model{nullptr};
  std::unique_ptr<ObjectiveComposer> composer;
  std::unique_ptr<AdamW> optimizer;
  std::vector<at::Tensor> params;
  std::int64_t step = 0;
  std::vector<double> total, objective, backward, update;  // seconds per measured step
};

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One trainer step; returns its wall time and records the phases when `record`.
double runStep(Runner& r, const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& labels,
               bool record) {
  const auto t0 = std::chrono::steady_clock::now();
  r.optimizer->zeroGrad();
  const StepOutcome out = r.composer->compute(*r.model, ids, mask, labels, r.step);
  const double tObjective = secondsSince(t0);
  out.total.backward();
  const double tBackward = secondsSince(t0);
  const auto gradNorm = clipGradNorm(r.params, r.config.optimizer.clipNorm);
  const auto finite = torch::stack({torch::isfinite(out.total.detach()), torch::isfinite(gradNorm)})
                          .to(torch::kCPU);
  if (!finite[0].item<bool>() || !finite[1].item<bool>()) {
    std::fprintf(stderr, "bench: %s: non-finite loss or gradient at step %lld\n",
                 r.mechanism.name.c_str(), static_cast<long long>(r.step + 1));
    std::exit(1);
  }
  r.optimizer->step(1e-4);
  ++r.step;
  const double tTotal = secondsSince(t0);
  if (record) {
    r.total.push_back(tTotal);
    r.objective.push_back(tObjective);
    r.backward.push_back(tBackward - tObjective);
    r.update.push_back(tTotal - tBackward);
  }
  return tTotal;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool selected(const Args& a, const std::string& name) {
  if (a.only.empty() || name == "baseline") return true;
  const std::string list = "," + a.only + ",";
  return list.find("," + name + ",") != std::string::npos;
}

// ASA's own parts at the benchmark's shape, forward + backward, median of `steps`: the four
// adversaries with their mask biases, and the token- plus sentence-level KL.
void microAsa(const at::Tensor& ids, const at::Tensor& mask, const at::Tensor& labels, int steps) {
  const int hidden = 256, layers = 4;
  torch::manual_seed(0);
  std::vector<AttentionAdversary> adversaries;
  for (int l = 0; l < layers; ++l) adversaries.emplace_back(hidden);
  const auto x = torch::randn({kBatch, kSequence, hidden});
  const auto upstream = torch::randn({kBatch, 1, kSequence, kSequence});
  const auto rows = labels.ne(-100).sum().item<std::int64_t>();
  auto cleanBoth = (torch::randn({rows + kBatch, kVocab}) * 2).requires_grad_();
  auto advBoth = (torch::randn({rows + kBatch, kVocab}) * 2).requires_grad_();
  std::vector<double> tAdv, tKl, tKlPlain;
  for (int s = 0; s < steps + 1; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    at::Tensor total;
    std::vector<at::Tensor> masks;
    for (auto& adversary : adversaries) {
      auto keep = adversary->forward(x, mask, AdversaryOptions{});
      masks.push_back(keep);
      auto term = (adversarialMaskBias(keep) * upstream).sum();
      total = total.defined() ? total + term : term;
    }
    (total + maskPenalty(masks, 0.5, false)).backward();
    const double adv = secondsSince(t0);
    t0 = std::chrono::steady_clock::now();
    const auto token = predictionKl(cleanBoth.slice(0, 0, rows), advBoth.slice(0, 0, rows), false);
    const auto sentence = predictionKl(cleanBoth.slice(0, rows), advBoth.slice(0, rows), false);
    (token + sentence).backward();
    const double kl = secondsSince(t0);
    // The same two terms through plain autograd (log_softmax, exp, sub, mul, sum), the way
    // predictionKl computed them before its gradient was written out: a same-process A/B.
    t0 = std::chrono::steady_clock::now();
    auto plainKl = [](const at::Tensor& a, const at::Tensor& b) {
      const auto logP = torch::log_softmax(a, -1), logQ = torch::log_softmax(b, -1);
      return (logP.exp() * (logP - logQ)).sum() / static_cast<double>(a.size(0));
    };
    (plainKl(cleanBoth.slice(0, 0, rows), advBoth.slice(0, 0, rows)) +
     plainKl(cleanBoth.slice(0, rows), advBoth.slice(0, rows)))
        .backward();
    const double klPlain = secondsSince(t0);
    if (s > 0) {
      tAdv.push_back(adv);
      tKl.push_back(kl);
      tKlPlain.push_back(klPlain);
    }
  }
  std::printf(
      "micro_asa adversaries_fwd_bwd_ms=%.1f kl_fwd_bwd_ms=%.1f kl_plain_autograd_fwd_bwd_ms=%.1f "
      "(%lld selected rows + %d first positions, vocab %d)\n",
      median(tAdv) * 1000.0, median(tKl) * 1000.0, median(tKlPlain) * 1000.0,
      static_cast<long long>(rows), kBatch, kVocab);
  // The KL's gradients against plain autograd in double, as a sanity check of the figures.
  auto a = cleanBoth.detach().slice(0, 0, 64).to(torch::kDouble).requires_grad_();
  auto b = advBoth.detach().slice(0, 0, 64).to(torch::kDouble).requires_grad_();
  for (const bool symmetric : {false, true}) {
    predictionKl(a, b, symmetric).backward();
    const auto ga = a.grad().clone(), gb = b.grad().clone();
    a.mutable_grad() = torch::Tensor();
    b.mutable_grad() = torch::Tensor();
    const auto logP = torch::log_softmax(a, -1), logQ = torch::log_softmax(b, -1);
    auto reference = (logP.exp() * (logP - logQ)).sum() / 64.0;
    if (symmetric) reference = 0.5 * (reference + (logQ.exp() * (logQ - logP)).sum() / 64.0);
    reference.backward();
    std::printf("micro_asa kl_%s grad_max_abs_diff=%.3g (double, vs autograd)\n",
                symmetric ? "symmetric" : "forward",
                std::max((ga - a.grad()).abs().max().item<double>(),
                         (gb - b.grad()).abs().max().item<double>()));
    a.mutable_grad() = torch::Tensor();
    b.mutable_grad() = torch::Tensor();
  }
  (void)ids;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] { return i + 1 < argc ? std::atoi(argv[++i]) : 0; };
    if (arg == "--steps")
      a.steps = value();
    else if (arg == "--warmup")
      a.warmup = value();
    else if (arg == "--threads")
      a.threads = value();
    else if (arg == "--breakdown")
      a.breakdown = true;
    else if (arg == "--only" && i + 1 < argc)
      a.only = argv[++i];
    else if (arg == "--profile" && i + 1 < argc)
      a.profile = argv[++i];
    else if (arg == "--micro-asa")
      a.microAsa = true;
    else if (arg == "--profile-steps")
      a.profileSteps = value();
    else {
      std::fprintf(stderr,
                   "usage: %s [--steps N] [--warmup N] [--threads N] [--breakdown] "
                   "[--only name,name,...] [--profile PREFIX] [--profile-steps N] [--micro-asa]\n",
                   argv[0]);
      return 2;
    }
  }
  if (a.steps < 1) a.steps = 1;
  if (a.warmup < 0) a.warmup = 0;
  const int threads = configureIntraOpThreads(a.threads);
  const double peak = measureMatmulGflops(1024, 10);
  std::printf(
      "config: 4 layers, hidden 256, 4 heads, ffn 1024, vocab %d, batch %d x %d tokens, AdamW, "
      "clip 1.0, dropout 0.1, %d threads; %d warm-up + %d measured steps per mechanism, "
      "interleaved\n",
      kVocab, kBatch, kSequence, threads, a.warmup, a.steps);
  std::printf("matmul_peak_gflops=%.1f (float32 1024x1024, best of 10)\n", peak);
  std::printf("engine BLAS: %s\n", loadedBlasLibrary().c_str());
  std::fflush(stdout);

  // The fixed batch: random ids 5..V-1, <s> first and </s> last, a few inner </s> and
  // period ids so [Delim] and [Period] have targets, 15% of the positions selected.
  torch::manual_seed(1234);
  auto ids = torch::randint(5, kVocab, {kBatch, kSequence}, torch::kLong);
  ids.select(1, 0).fill_(1);
  ids.select(1, kSequence - 1).fill_(2);
  for (const std::int64_t t : {17, 45, 80, 111}) ids.select(1, t).fill_(kPeriodId);
  for (const std::int64_t t : {46, 81}) ids.select(1, t).fill_(2);
  const auto mask = torch::ones({kBatch, kSequence}, torch::kBool);
  const auto labels =
      torch::where(torch::rand({kBatch, kSequence}) < 0.15, ids, torch::full_like(ids, -100));
  GuidanceTokens tokens;
  tokens.delimiterIds = {1, 2};
  tokens.periodIds = {kPeriodId};

  if (a.microAsa) {
    microAsa(ids, mask, labels, a.steps);
    return 0;
  }

  std::vector<Runner> runners;
  for (const auto& m : mechanisms()) {
    if (!selected(a, m.name)) continue;
    Runner r;
    r.mechanism = m;
    r.config = benchConfig();
    m.configure(r.config);
    validateRunConfig(r.config);  // the combination must be one a run would accept
    torch::manual_seed(0);
    r.model = MaskedLanguageModel(r.config.model, r.config.attention, kSequence, kVocab, 0);
    r.model->train();
    r.composer = std::make_unique<ObjectiveComposer>(r.config, tokens);
    std::vector<std::pair<std::string, at::Tensor>> named;
    for (const auto& p : r.model->named_parameters()) {
      named.emplace_back(p.key(), p.value());
      r.params.push_back(p.value());
    }
    const auto& o = r.config.optimizer;
    r.optimizer =
        std::make_unique<AdamW>(named, AdamWOptions{o.beta1, o.beta2, o.eps, o.weightDecay});
    runners.push_back(std::move(r));
  }

  // Rounds: baseline, every mechanism once, baseline again.
  std::vector<std::vector<double>> ratios(runners.size());
  for (int round = 0; round < a.warmup + a.steps; ++round) {
    const bool record = round >= a.warmup;
    const double before = runStep(runners[0], ids, mask, labels, record);
    std::vector<double> times(runners.size(), 0.0);
    for (size_t i = 1; i < runners.size(); ++i)
      times[i] = runStep(runners[i], ids, mask, labels, record);
    const double after = runStep(runners[0], ids, mask, labels, record);
    if (record) {
      const double reference = 0.5 * (before + after);
      for (size_t i = 1; i < runners.size(); ++i) ratios[i].push_back(times[i] / reference);
    }
  }

  if (!a.profile.empty()) {
    // Extra steps (--profile-steps) each under LibTorch's profiler (a Chrome trace per mechanism),
    // after the timed rounds so the profiler's overhead never reaches the figures.
    for (auto& r : runners) {
      std::string name = r.mechanism.name;
      std::replace(name.begin(), name.end(), '+', '-');
      const std::string file = a.profile + "-" + name + ".json";
      {
        torch::autograd::profiler::RecordProfile guard(file);
        for (int k = 0; k < a.profileSteps; ++k) runStep(r, ids, mask, labels, false);
      }
      std::printf("profile: %s\n", file.c_str());
    }
  }

  const double baseMs = median(runners[0].total) * 1000.0;
  std::string worstName;
  double worstRatio = 0.0, worstScore = -1.0;
  for (size_t i = 0; i < runners.size(); ++i) {
    const auto& r = runners[i];
    const double ms = median(r.total) * 1000.0;
    const double ratio = i == 0 ? 1.0 : median(ratios[i]);
    char target[64] = "target=-";
    if (r.mechanism.target > 0.0) {
      std::snprintf(target, sizeof target, "target<=%.2f %s", r.mechanism.target,
                    ratio <= r.mechanism.target ? "ok" : "MISSED");
      const double score = ratio / r.mechanism.target;
      if (score > worstScore) {
        worstScore = score;
        worstRatio = ratio;
        worstName = r.mechanism.name;
      }
    }
    std::printf("%-12s ms_per_step=%.1f ratio=%.3f %s\n", r.mechanism.name.c_str(), ms, ratio,
                target);
    if (a.breakdown) {
      std::printf("  %-10s objective_ms=%.1f backward_ms=%.1f clip_adamw_ms=%.1f\n", "",
                  median(r.objective) * 1000.0, median(r.backward) * 1000.0,
                  median(r.update) * 1000.0);
    }
  }
  std::printf("baseline_ms_per_step=%.1f (median of %zu baseline steps)\n", baseMs,
              runners[0].total.size());
  if (worstName.empty()) {
    std::printf("worst_overhead=none:0.000\n");
  } else {
    std::printf("worst_overhead=%s:%.3f\n", worstName.c_str(), worstRatio);
  }
  return 0;
}
