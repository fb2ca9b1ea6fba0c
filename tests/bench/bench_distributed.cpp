// Data-parallel training speed (issue 13): the engine's step (core/train/train_step.h) on
// 1 process against 2 processes joined over c10d Gloo (core/distributed/), each with one
// intra-op thread, on the bench config of bench_pretraining; the share of a 2-process step
// spent in the collectives; the allreduce bandwidth between the 2 processes; and, since one
// 2-core machine cannot show real scaling, a model of 2, 4, 8 machines on a 10 Gbit/s
// network built from those measurements (printed as a projection, not a measurement).
// A benchmark, not a test: it prints figures.
// Last line: dist_2proc_vs_1proc=<ratio> comm_share=<fraction>.
//
// The processes are real ones: the bench starts itself again in worker mode
// (`--worker RANK --world W --store FILE --result FILE`), with OMP_NUM_THREADS=1,
// OPENBLAS_NUM_THREADS=1 and OMP_WAIT_POLICY=PASSIVE, so ranks do not share one OpenMP pool
// as two threads of one process would. The 1-process baseline is such a worker too (world 1),
// so both sides run under the same environment.
#include "core/config/run_config.h"
#include "core/data/mlm_batcher.h"
#include "core/distributed/distributed_context.h"
#include "core/model/masked_lm.h"
#include "core/runtime/compute_environment.h"
#include "core/runtime/engine_random.h"
#include "core/train/adamw.h"
#include "core/train/grad_clip.h"
#include "core/train/objective_composer.h"
#include "core/train/train_step.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace attnlab::core;

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  // The bench config (bench_pretraining's): per process and per step one micro-batch.
  int layers = 4, hidden = 256, heads = 4, ffn = 1024, vocab = 8000, batch = 32, seq = 128;
  int steps = 8, warmup = 2;
  int reps = 10;  // allreduce repetitions per buffer size
  // The projection's assumptions.
  double networkGbit = 10.0;
  double latencyUs = 50.0;
  int machineCores = 0;  // 0: this machine's core count
  // Worker mode (internal).
  int worker = -1, world = 1;
  std::string store, result;
};

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

/// The micro-batch of a rank: random ids, no padding, about 15% of the positions predicted
/// (selectedTokens set: a step of several micro-batches weights each rank's MLM loss by it).
MlmBatch makeBatch(const Args& a, int rank) {
  auto gen = at::detail::createCPUGenerator(100 + static_cast<std::uint64_t>(rank));
  MlmBatch b;
  b.inputIds = torch::randint(5, a.vocab, {a.batch, a.seq}, gen, torch::kLong);
  b.attentionMask = torch::ones({a.batch, a.seq}, torch::kBool);
  const auto selected = torch::rand({a.batch, a.seq}, gen) < 0.15;
  b.labels = torch::where(selected, b.inputIds, torch::full_like(b.inputIds, kIgnoreLabel));
  b.realTokens = std::int64_t(a.batch) * a.seq;
  b.selectedTokens = selected.sum().item<std::int64_t>();
  return b;
}

RunConfig benchConfig(const Args& a) {
  RunConfig rc;
  rc.run.seed = 1;
  rc.model.layers = a.layers;
  rc.model.hiddenSize = a.hidden;
  rc.model.heads = a.heads;
  rc.model.ffnSize = a.ffn;
  rc.optimizer.clipNorm = 1.0;
  rc.optimizer.learningRate = 1e-4;
  rc.schedule.steps = 2 * (a.warmup + a.steps) + 2;
  rc.schedule.warmupSteps = 0;
  rc.schedule.decay = LearningRateDecay::Constant;
  rc.train.gradientAccumulation = 1;
  return rc;
}

/// How many buckets DistributedContext::sumGradients forms (same rule: parameter order,
/// about `bucketBytes` each, one dtype per bucket); the projection's latency term counts them.
int bucketCount(const std::vector<at::Tensor>& params, std::int64_t bucketBytes) {
  int buckets = 0;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::int64_t size = params[i].numel() * params[i].element_size();
    const bool sameType = i > 0 && params[i - 1].scalar_type() == params[i].scalar_type();
    if (buckets == 0 || bytes + size > bucketBytes || !sameType) {
      ++buckets;
      bytes = 0;
    }
    bytes += size;
  }
  return buckets;
}

/// One worker: the engine's step timed, then (world > 1) the same step taken apart to time
/// its collectives, then allreduce bandwidth. Writes key=value lines to `a.result`.
int runWorker(const Args& a) {
  configureIntraOpThreads(1);
  std::unique_ptr<DistributedContext> context;
  if (a.world > 1)
    context = DistributedContext::connectWithFileStore(a.store, a.worker, a.world,
                                                       std::chrono::seconds(120));
  DistributedContext* dist = context.get();
  const RunConfig rc = benchConfig(a);
  ScopedThreadGenerator generator(at::detail::createCPUGenerator(1));
  MaskedLanguageModel model{nullptr};
  seededConstruction(static_cast<std::uint64_t>(rc.run.seed),
                     [&] { model = MaskedLanguageModel(rc.model, a.vocab, 0); });
  model->train();
  std::vector<std::pair<std::string, at::Tensor>> named;
  std::vector<at::Tensor> params;
  for (const auto& p : model->named_parameters()) {
    named.emplace_back(p.key(), p.value());
    params.push_back(p.value());
  }
  AdamW optimizer(named, {0.9, 0.98, 1e-6, 0.01});
  const ObjectiveComposer objective(rc, GuidanceTokens{});
  const c10::Device cpu(c10::kCPU);
  TrainStep trainStep(*model, objective, optimizer, rc, cpu, dist);
  const MlmBatch batch = makeBatch(a, a.worker);
  const MicroBatchSource source = [&](std::int64_t) { return batch; };

  std::ostringstream out;
  std::int64_t gradientBytes = 0;
  for (const auto& p : params) gradientBytes += p.numel() * p.element_size();
  out << "gradient_bytes=" << gradientBytes << "\n";
  out << "parameter_tensors=" << params.size() << "\n";
  out << "buckets=" << bucketCount(params, std::int64_t{1} << 20) << "\n";

  // 1. The engine's own step, as the trainer runs it.
  if (dist) dist->barrier();
  std::vector<double> stepTimes;
  std::int64_t step = 0;
  for (int i = 0; i < a.warmup + a.steps; ++i, ++step) {
    const auto t0 = Clock::now();
    const StepMeasurements m = trainStep.run(step, source);
    const auto t1 = Clock::now();
    if (!m.nonFinite.empty()) {
      std::fprintf(stderr, "worker %d: %s\n", a.worker, m.nonFinite.c_str());
      return 1;
    }
    if (i >= a.warmup) stepTimes.push_back(seconds(t0, t1));
  }
  out << "step_median_s=" << median(stepTimes) << "\n";
  out << "step_mean_s=" << sum(stepTimes) / static_cast<double>(stepTimes.size()) << "\n";
  if (dist) {
    // 1b. The same step with the gradient sum after backward, then overlapped with buckets
    //     of 1, 4 (the default) and 16 MiB: blocks of steps, in this order on both ranks.
    const auto timeSteps = [&](bool overlapped, std::int64_t bucketBytes) {
      trainStep.setOverlappedReduction(overlapped, bucketBytes);
      std::vector<double> t;
      dist->barrier();
      for (int i = 0; i < a.warmup + a.steps; ++i, ++step) {
        const auto t0 = Clock::now();
        trainStep.run(step, source);
        if (i >= a.warmup) t.push_back(seconds(t0, Clock::now()));
      }
      return median(t);
    };
    out << "step_after_backward_s=" << timeSteps(false, 0) << "\n";
    for (const int mib : {1, 4, 16})
      out << "step_overlapped_" << mib << "mib_s=" << timeSteps(true, std::int64_t{mib} << 20)
          << "\n";
    trainStep.setOverlappedReduction(true);
  }

  {
    // 2. The same step taken apart (train_step.cpp's sequence, one micro-batch per rank):
    //    the predicted-token count's sum, forward + backward, sumGradients, the metrics' sum,
    //    clipping + finiteness read + AdamW; one process skips the collectives, as TrainStep
    //    does. Collective times include waiting for the other rank, as in a real step.
    const int world = a.world;
    std::vector<double> zero, count, compute, gradients, metrics, update, total;
    for (int i = 0; i < a.warmup + a.steps; ++i, ++step) {
      const auto t0 = Clock::now();
      optimizer.zeroGrad();
      const auto tz = Clock::now();
      at::Tensor predictedCount =
          torch::tensor({static_cast<double>(batch.selectedTokens)}, torch::kDouble);
      if (dist) dist->sum(predictedCount);
      const double stepPredicted = predictedCount.item<double>();
      const auto t1 = Clock::now();
      const std::int64_t index = step * world + a.worker;
      {
        at::Generator g = threadGenerator();
        std::lock_guard<std::mutex> lock(g.mutex());
        g.set_current_seed(microBatchSeed(static_cast<std::uint64_t>(rc.run.seed), index));
      }
      const StepOutcome o =
          objective.compute(*model, batch.inputIds, batch.attentionMask, batch.labels, step);
      const double share = static_cast<double>(batch.selectedTokens) / stepPredicted;
      if (world == 1)
        o.total.backward();
      else
        (o.mlm * share + (o.total - o.mlm) / world).backward();
      const at::Tensor loss = o.total.detach().to(torch::kDouble);
      const at::Tensor mlmLossSum = o.mlm.detach().to(torch::kDouble) * o.predicted;
      const auto t2 = Clock::now();
      if (dist) dist->sumGradients(params);
      const auto t3 = Clock::now();
      std::vector<at::Tensor> parts = {
          loss.reshape({1}), mlmLossSum.reshape({1}), o.correct.to(torch::kDouble).reshape({1}),
          o.predicted.to(torch::kDouble).reshape({1}),
          torch::tensor({static_cast<double>(batch.realTokens), 1.0}, torch::kDouble)};
      for (const auto& [name, value] : o.quantities)
        parts.push_back(value.to(torch::kDouble).reshape({-1}));
      at::Tensor flat = torch::cat(parts).contiguous();
      if (dist) dist->sum(flat);
      const double tokens = flat[4].item<double>();
      const auto t4 = Clock::now();
      const at::Tensor norm = clipGradNorm(params, rc.optimizer.clipNorm);
      const auto finite =
          torch::stack({torch::isfinite(flat[0]), torch::isfinite(norm)}).to(torch::kCPU);
      if (!finite[0].item<bool>() || !finite[1].item<bool>() || tokens <= 0) {
        std::fprintf(stderr, "worker %d: non-finite loss or gradient\n", a.worker);
        return 1;
      }
      optimizer.step(rc.optimizer.learningRate);
      const auto t5 = Clock::now();
      if (i < a.warmup) continue;
      zero.push_back(seconds(t0, tz));
      count.push_back(seconds(tz, t1));
      compute.push_back(seconds(t1, t2));
      gradients.push_back(seconds(t2, t3));
      metrics.push_back(seconds(t3, t4));
      update.push_back(seconds(t4, t5));
      total.push_back(seconds(t0, t5));
    }
    // Shares over the whole timed span (sums), which equals the mean step's share.
    out << "parts_total_s=" << sum(total) << "\n";
    out << "parts_zero_s=" << sum(zero) << "\n";
    out << "parts_count_s=" << sum(count) << "\n";
    out << "parts_compute_s=" << sum(compute) << "\n";
    out << "parts_gradients_s=" << sum(gradients) << "\n";
    out << "parts_metrics_s=" << sum(metrics) << "\n";
    out << "parts_update_s=" << sum(update) << "\n";
    out << "parts_steps=" << total.size() << "\n";
  }

  if (dist) {
    // 3. Allreduce bandwidth: one contiguous float32 buffer of the gradients' size, and one
    //    of 40 MB, summed with DistributedContext::sum; sumGradients itself on the model's
    //    gradients (1 MB buckets, flattening and copying back included).
    const auto allreduce = [&](std::int64_t bytes) {
      at::Tensor buffer = torch::ones({bytes / 4}, torch::kFloat);
      std::vector<double> t;
      for (int r = 0; r < 2 + a.reps; ++r) {
        dist->barrier();
        const auto t0 = Clock::now();
        dist->sum(buffer);
        const auto t1 = Clock::now();
        if (r >= 2) t.push_back(seconds(t0, t1));
      }
      return median(t);
    };
    out << "allreduce_grad_s=" << allreduce(gradientBytes) << "\n";
    out << "allreduce_40mb_bytes=" << std::int64_t{40} * 1000 * 1000 << "\n";
    out << "allreduce_40mb_s=" << allreduce(std::int64_t{40} * 1000 * 1000) << "\n";
    std::vector<double> bucketed;
    for (int r = 0; r < 2 + a.reps; ++r) {
      dist->barrier();
      const auto t0 = Clock::now();
      dist->sumGradients(params);
      const auto t1 = Clock::now();
      if (r >= 2) bucketed.push_back(seconds(t0, t1));
    }
    out << "sum_gradients_s=" << median(bucketed) << "\n";
    std::vector<double> oneBucket;  // the same with one bucket for all (bucketBytes = 1 GB)
    for (int r = 0; r < 2 + a.reps; ++r) {
      dist->barrier();
      const auto t0 = Clock::now();
      dist->sumGradients(params, std::int64_t{1} << 30);
      const auto t1 = Clock::now();
      if (r >= 2) oneBucket.push_back(seconds(t0, t1));
    }
    out << "sum_gradients_one_bucket_s=" << median(oneBucket) << "\n";
    const auto latency = [&] {
      at::Tensor one = torch::ones({1}, torch::kFloat);
      std::vector<double> t;
      for (int r = 0; r < 20 + 10 * a.reps; ++r) {
        const auto t0 = Clock::now();
        dist->sum(one);
        const auto t1 = Clock::now();
        if (r >= 20) t.push_back(seconds(t0, t1));
      }
      return median(t);
    };
    out << "allreduce_4b_s=" << latency() << "\n";
    dist->barrier();
  }
  std::ofstream file(a.result);
  file << out.str();
  return file.good() ? 0 : 1;
}

/// Busy and total CPU time of the whole machine so far (seconds, from /proc/stat).
std::pair<double, double> machineCpuSeconds() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  in >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double busy = user + nice + system + irq + softirq + steal;
  return {busy / hz, (busy + idle + iowait) / hz};
}

/// CPU time (user + system) of this process's finished children.
double childrenCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  const auto s = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

using Results = std::map<std::string, double>;

Results readResults(const std::string& path) {
  Results r;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) r[line.substr(0, eq)] = std::atof(line.c_str() + eq + 1);
  }
  return r;
}

/// Starts `world` workers of this program and waits for them; their results by rank.
std::vector<Results> runWorkers(const Args& a, int world, const std::filesystem::path& dir) {
  const std::string tag = std::to_string(world) + "proc";
  const std::string store = (dir / ("store_" + tag)).string();
  std::vector<pid_t> pids;
  std::vector<std::string> resultFiles;
  for (int rank = 0; rank < world; ++rank) {
    const std::string result = (dir / (tag + "_rank" + std::to_string(rank))).string();
    resultFiles.push_back(result);
    std::vector<std::string> argv = {"bench_distributed",
                                     "--worker",
                                     std::to_string(rank),
                                     "--world",
                                     std::to_string(world),
                                     "--store",
                                     store,
                                     "--result",
                                     result,
                                     "--steps",
                                     std::to_string(a.steps),
                                     "--warmup",
                                     std::to_string(a.warmup),
                                     "--reps",
                                     std::to_string(a.reps),
                                     "--batch",
                                     std::to_string(a.batch),
                                     "--seq",
                                     std::to_string(a.seq)};
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      std::exit(1);
    }
    if (pid == 0) {
      setenv("OMP_NUM_THREADS", "1", 1);
      setenv("OPENBLAS_NUM_THREADS", "1", 1);
      setenv("MKL_NUM_THREADS", "1", 1);
      setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
      std::vector<char*> args;
      for (auto& s : argv) args.push_back(s.data());
      args.push_back(nullptr);
      execv("/proc/self/exe", args.data());
      std::perror("execv");
      std::_Exit(127);
    }
    pids.push_back(pid);
  }
  bool failed = false;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = true;
  }
  if (failed) {
    std::fprintf(stderr, "bench_distributed: a %d-process worker failed\n", world);
    std::exit(1);
  }
  std::vector<Results> results;
  for (const auto& f : resultFiles) results.push_back(readResults(f));
  return results;
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--steps N] [--warmup N] [--reps N] [--batch N] [--seq N]\n"
               "          [--network-gbit G] [--latency-us U] [--machine-cores C]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(argv[0]);
    const char* v = argv[++i];
    if (arg == "--steps")
      a.steps = std::atoi(v);
    else if (arg == "--warmup")
      a.warmup = std::atoi(v);
    else if (arg == "--reps")
      a.reps = std::atoi(v);
    else if (arg == "--batch")
      a.batch = std::atoi(v);
    else if (arg == "--seq")
      a.seq = std::atoi(v);
    else if (arg == "--network-gbit")
      a.networkGbit = std::atof(v);
    else if (arg == "--latency-us")
      a.latencyUs = std::atof(v);
    else if (arg == "--machine-cores")
      a.machineCores = std::atoi(v);
    else if (arg == "--worker")
      a.worker = std::atoi(v);
    else if (arg == "--world")
      a.world = std::atoi(v);
    else if (arg == "--store")
      a.store = v;
    else if (arg == "--result")
      a.result = v;
    else
      return usage(argv[0]);
  }
  if (a.steps < 1 || a.warmup < 0 || a.reps < 1 || a.batch < 1 || a.seq < 1) return usage(argv[0]);
  if (a.worker >= 0) {
    try {
      return runWorker(a);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "worker %d: %s\n", a.worker, e.what());
      return 1;
    }
  }

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (a.machineCores <= 0) a.machineCores = cores;
  std::printf(
      "config: %d layers, hidden %d, %d heads, ffn %d, vocab %d, batch %d x %d tokens per "
      "process and step, AdamW, dropout 0.1 (bench_pretraining's config)\n",
      a.layers, a.hidden, a.heads, a.ffn, a.vocab, a.batch, a.seq);
  std::printf(
      "machine: %d cores; each process: 1 intra-op thread, OMP_NUM_THREADS=1 "
      "OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE; Gloo over loopback (2 Gloo threads per "
      "process), FileStore\n",
      cores);
  std::printf(
      "timing: %d warm-up steps excluded, median of %d timed steps; allreduce median of "
      "%d after 2 warm-up\n",
      a.warmup, a.steps, a.reps);

  char dirTemplate[] = "/tmp/bench_distributed.XXXXXX";
  if (mkdtemp(dirTemplate) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::filesystem::path dir = dirTemplate;

  const auto [busy0, total0] = machineCpuSeconds();
  const double own0 = childrenCpuSeconds();
  const auto t0 = Clock::now();
  const Results one = runWorkers(a, 1, dir)[0];
  const std::vector<Results> two = runWorkers(a, 2, dir);
  const double wall = seconds(t0, Clock::now());
  std::filesystem::remove_all(dir);
  const auto [busy1, total1] = machineCpuSeconds();
  // What other processes took from the machine meanwhile: busy time not spent by the workers.
  const double others = std::max(0.0, (busy1 - busy0) - (childrenCpuSeconds() - own0));
  const double othersShare = others / std::max(1e-9, total1 - total0);

  const double seqPerStep = a.batch;
  const double tokensPerSeq = a.seq;
  const double step1 = one.at("step_median_s");
  const double step2 = std::max(two[0].at("step_median_s"), two[1].at("step_median_s"));
  const double thr1 = seqPerStep / step1;
  const double thr2 = 2 * seqPerStep / step2;
  const double ratio = thr2 / thr1;
  std::printf("\n-- measured on this machine (weak scaling: %d sequences per process and step)\n",
              a.batch);
  std::printf("1 process : step %.1f ms (mean %.1f), %.2f seq/s, %.0f tokens/s\n", step1 * 1e3,
              one.at("step_mean_s") * 1e3, thr1, thr1 * tokensPerSeq);
  std::printf(
      "2 processes: step %.1f ms (rank 0 %.1f, rank 1 %.1f; mean %.1f / %.1f), %.2f seq/s, "
      "%.0f tokens/s\n",
      step2 * 1e3, two[0].at("step_median_s") * 1e3, two[1].at("step_median_s") * 1e3,
      two[0].at("step_mean_s") * 1e3, two[1].at("step_mean_s") * 1e3, thr2, thr2 * tokensPerSeq);
  std::printf(
      "2 vs 1 process throughput: %.3f (ideal 2.0; step time 2 vs 1: %.3f). The 2 processes "
      "share this machine's %d cores, its memory bandwidth and caches, and their Gloo threads "
      "run on the same cores: this is not the scaling of 2 machines.\n",
      ratio, step2 / step1, cores);

  std::printf(
      "2 processes, gradient sum after backward against overlapped with it (median step, ms; "
      "the slower rank): after %.1f, overlapped 1 MiB buckets %.1f, 4 MiB %.1f, 16 MiB %.1f\n",
      std::max(two[0].at("step_after_backward_s"), two[1].at("step_after_backward_s")) * 1e3,
      std::max(two[0].at("step_overlapped_1mib_s"), two[1].at("step_overlapped_1mib_s")) * 1e3,
      std::max(two[0].at("step_overlapped_4mib_s"), two[1].at("step_overlapped_4mib_s")) * 1e3,
      std::max(two[0].at("step_overlapped_16mib_s"), two[1].at("step_overlapped_16mib_s")) * 1e3);

  // The communication share, from the step taken apart in the 2-process workers.
  std::printf(
      "\n-- the step taken apart (train_step.cpp's sequence; ms per step, mean of %d; "
      "collectives include waiting for the other rank)\n",
      a.steps);
  {
    const double n = one.at("parts_steps");
    std::printf(
        "1 process: step %.1f = zeroGrad %.2f + forward/backward %.1f + clip/AdamW %.1f (+ "
        "%.2f other)\n",
        one.at("parts_total_s") / n * 1e3, one.at("parts_zero_s") / n * 1e3,
        one.at("parts_compute_s") / n * 1e3, one.at("parts_update_s") / n * 1e3,
        (one.at("parts_count_s") + one.at("parts_gradients_s") + one.at("parts_metrics_s")) / n *
            1e3);
  }
  double share = 0, leastShare = 1;
  for (int r = 0; r < 2; ++r) {
    const Results& w = two[static_cast<std::size_t>(r)];
    const double n = w.at("parts_steps");
    const double comm = w.at("parts_count_s") + w.at("parts_gradients_s") + w.at("parts_metrics_s");
    const double rankShare = comm / w.at("parts_total_s");
    share += rankShare / 2;
    leastShare = std::min(leastShare, rankShare);
    std::printf(
        "2 processes, rank %d: step %.1f = zeroGrad %.2f + count sum %.2f + forward/backward %.1f "
        "+ "
        "sumGradients %.1f + metrics sum %.2f + clip/AdamW %.1f; communication %.1f ms = %.3f "
        "of the step\n",
        r, w.at("parts_total_s") / n * 1e3, w.at("parts_zero_s") / n * 1e3,
        w.at("parts_count_s") / n * 1e3, w.at("parts_compute_s") / n * 1e3,
        w.at("parts_gradients_s") / n * 1e3, w.at("parts_metrics_s") / n * 1e3,
        w.at("parts_update_s") / n * 1e3, comm / n * 1e3, rankShare);
  }
  std::printf(
      "communication share: %.3f (mean of the 2 ranks; %.3f on the rank that waits least, "
      "i.e. transfer with little waiting)\n",
      share, leastShare);

  const Results& w0 = two[0];
  const double G = w0.at("gradient_bytes");
  const int buckets = static_cast<int>(w0.at("buckets"));
  const double tGrad = std::max(two[0].at("allreduce_grad_s"), two[1].at("allreduce_grad_s"));
  const double B40 = w0.at("allreduce_40mb_bytes");
  const double t40 = std::max(two[0].at("allreduce_40mb_s"), two[1].at("allreduce_40mb_s"));
  const double tBucketed = std::max(two[0].at("sum_gradients_s"), two[1].at("sum_gradients_s"));
  const double tTiny = std::max(two[0].at("allreduce_4b_s"), two[1].at("allreduce_4b_s"));
  // Bus bandwidth for n = 2: 2(n-1)/n = 1, so it equals the algorithm bandwidth.
  const auto mbps = [](double bytes, double s) { return bytes / s / 1e6; };
  std::printf(
      "\n-- allreduce between the 2 processes (Gloo, loopback; algorithm bandwidth = "
      "bytes/time, bus bandwidth = 2(n-1)/n x that = the same for n = 2)\n");
  std::printf("gradients: %.0f parameters in %d tensors, %.2f MB float32, %d buckets of ~1 MB\n",
              G / 4, static_cast<int>(w0.at("parameter_tensors")), G / 1e6, buckets);
  std::printf("one buffer of the gradients' size (%.2f MB): %.2f ms, %.0f MB/s\n", G / 1e6,
              tGrad * 1e3, mbps(G, tGrad));
  std::printf("one 40 MB buffer: %.2f ms, %.0f MB/s\n", t40 * 1e3, mbps(B40, t40));
  std::printf("sumGradients (bucketed, with flatten/copy-back): %.2f ms, %.0f MB/s\n",
              tBucketed * 1e3, mbps(G, tBucketed));
  const double tOneBucket =
      std::max(two[0].at("sum_gradients_one_bucket_s"), two[1].at("sum_gradients_one_bucket_s"));
  std::printf("sumGradients with a single bucket (bucketBytes 1 GB): %.2f ms, %.0f MB/s\n",
              tOneBucket * 1e3, mbps(G, tOneBucket));
  std::printf("4-byte allreduce (latency): %.1f us\n", tTiny * 1e6);

  // The projection.
  const double tc1 = step1;  // 1 process, 1 thread: the whole step (forward, backward, AdamW)
  const double tcMachine = tc1 / a.machineCores;
  const double net = a.networkGbit * 1e9 / 8;           // bytes/s
  const double measuredBus = mbps(G, tBucketed) * 1e6;  // the engine's own path
  const double bw = std::min(net, measuredBus);
  // Per message: the assumed network latency, or Gloo's measured 2-process small-allreduce
  // time / 2 (2(n-1) = 2 messages) when that is larger (software overhead stays on a network).
  const double alpha = std::max(a.latencyUs * 1e-6, tTiny / 2);
  std::printf("\n-- PROJECTION, NOT MEASURED: n machines on a %.0f Gbit/s network\n",
              a.networkGbit);
  std::printf(
      "assumption: ring allreduce: each machine sends and receives 2(n-1)/n x G bytes, "
      "G = %.2f MB of float32 gradients per step\n"
      "assumption: bandwidth = min(network %.0f MB/s, the engine's sumGradients measured here "
      "%.0f MB/s) = %.0f MB/s\n"
      "assumption: latency %.0f us per message (the larger of %.0f us assumed and half the "
      "measured 4-byte allreduce), 2(n-1) messages per allreduce, %d allreduces per step "
      "(%d buckets + flags + count + metrics), none overlapped\n"
      "assumption: no overlap of communication with compute (pessimistic: the engine starts "
      "each bucket's sum during the backward pass, as measured above): efficiency = "
      "t_c / (t_c + t_comm), speed-up = n x efficiency\n"
      "assumption: t_c = the 1-process 1-thread step measured here, %.0f ms; a whole %d-core "
      "machine: t_c / %d = %.0f ms if compute scaled linearly over its cores (optimistic for "
      "compute, so pessimistic for efficiency)\n",
      G / 1e6, net / 1e6, measuredBus / 1e6, bw / 1e6, alpha * 1e6, a.latencyUs, buckets + 3,
      buckets, tc1 * 1e3, a.machineCores, a.machineCores, tcMachine * 1e3);
  for (int n : {2, 4, 8}) {
    const double tComm = 2.0 * (n - 1) / n * G / bw + 2.0 * (n - 1) * alpha * (buckets + 3);
    const double e1 = tc1 / (tc1 + tComm);
    const double eM = tcMachine / (tcMachine + tComm);
    std::printf(
        "projected n=%d: t_comm %.1f ms; 1 core per machine: efficiency %.3f, speed-up "
        "%.2fx; %d cores per machine: efficiency %.3f, speed-up %.2fx\n",
        n, tComm * 1e3, e1, n * e1, a.machineCores, eM, n * eM);
  }
  std::printf(
      "\nbench wall time %.0f s; other processes used %.1f%% of the machine's CPU time "
      "meanwhile%s\n",
      wall, 100 * othersShare,
      othersShare > 0.05 ? " (WARNING: the figures above are disturbed; run again on an "
                           "idle machine)"
                         : "");
  std::printf("dist_2proc_vs_1proc=%.3f comm_share=%.3f\n", ratio, share);
  return 0;
}
