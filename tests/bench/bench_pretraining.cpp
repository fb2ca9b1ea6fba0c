// Pretraining speed: AttnLab's engine against Python PyTorch on the same model, same
// BLAS and thread count, in one run: Debian's PyTorch 1.13 (/usr/bin/python3), and PyTorch
// 2.x eager (SDPA attention) and torch.compile from the pinned wheel's environment
// (build/torch-venv, packaging/setup-cuda.sh) when it exists. A benchmark, not a test: it
// prints figures. Last line:
//   engine_vs_torch2_eager=<r> engine_vs_torch2_compile=<r> engine_vs_torch113=<r>
// (0 for a reference that was not run).
#include "core/runtime/compute_environment.h"
#include "tests/bench/engine_bench.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace attnlab::core;
using namespace attnlab::bench;

namespace {

struct Args : attnlab::bench::ModelShape {
  bool python = true;
  std::string pythonExe = "/usr/bin/python3";
  std::string torch2Python;  // empty: no PyTorch 2.x reference
  std::string script;
};

Args parseArgs(int argc, char** argv, bool* ok) {
  Args a;
  a.script = std::string(ATTNLAB_SOURCE_DIR) + "/tests/bench/pytorch_reference.py";
  const std::string venv = std::string(ATTNLAB_SOURCE_DIR) + "/build/torch-venv/bin/python";
  if (std::FILE* f = std::fopen(venv.c_str(), "r")) {
    std::fclose(f);
    a.torch2Python = venv;
  }
  *ok = true;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--modernbert") {
      a.layers = 6, a.ffn = 384, a.batch = 16, a.seq = 256;  // its shape; flags below override
    }
  }
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
    else if (arg == "--modernbert")
      a.modernbert = true;
    else if (arg == "--torch2-python" && i + 1 < argc)
      a.torch2Python = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: %s [--modernbert] [--steps N] [--threads N] [--batch N] [--seq N] "
                   "[--no-python] [--torch2-python PYTHON]\n",
                   argv[0]);
      *ok = false;
    }
  }
  return a;
}

/// --modernbert: the engine's ModernBERT-layout step against transformers'
/// ModernBertForMaskedLM (PyTorch 2.x eager and torch.compile), same shapes, threads and
/// batch. Its own shape unless given: 6 layers (0 and 3 global), hidden 256, 4 heads, GeGLU
/// 384 (ModernBERT's 1.5x), 16 x 256 tokens, so the 128-token window bites.
int runModernBert(Args& a) {
  a.threads = configureIntraOpThreads(a.threads);
  std::printf(
      "config: ModernBERT layout, %d layers, hidden %d, %d heads, GeGLU %d, vocab %d, "
      "batch %d x %d tokens, window 128, AdamW, no dropout, %d threads\n",
      a.layers, a.hidden, a.heads, a.ffn, a.vocab, a.batch, a.seq, a.threads);
  std::printf("engine: %s\n", describeTorchVersions().c_str());
  const EngineResult engine = timeEngineSteps(a, c10::Device(c10::kCPU), Precision::Float32);
  const double tokens = double(a.batch) * a.seq;
  const double engineTps = tokens / engine.seconds;
  std::printf("engine  ms_per_step=%.1f tokens_per_s=%.1f peak_rss_mb=%.1f loss=%.4f\n",
              engine.seconds * 1000, engineTps, peakRssMb(), engine.loss);
  double eager = 0, compiled = 0;
  if (a.torch2Python.empty()) {
    std::printf(
        "no PyTorch 2.x with transformers: run packaging/setup-cuda.sh or pass "
        "--torch2-python\n");
  } else if (a.python) {
    ReferenceRun run;
    run.python = a.torch2Python;
    run.script = a.script;
    run.model = "modernbert";
    eager = runReference(a, run, 0);
    run.mode = "compile";
    compiled = runReference(a, run, 0);
  }
  const auto ratio = [&](double tps) { return tps > 0 ? engineTps / tps : 0.0; };
  std::printf("modernbert_vs_torch2_eager=%.2f modernbert_vs_torch2_compile=%.2f\n", ratio(eager),
              ratio(compiled));
  return (a.python && !a.torch2Python.empty() && eager <= 0) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool ok = true;
  Args a = parseArgs(argc, argv, &ok);
  if (!ok) return 2;
  if (a.modernbert) return runModernBert(a);
  a.threads = configureIntraOpThreads(a.threads);
  const double peak = measureMatmulGflops(1024, 10);
  std::printf(
      "config: %d layers, hidden %d, %d heads, ffn %d, vocab %d, batch %d x %d tokens, AdamW, "
      "dropout 0.1, %d threads\n",
      a.layers, a.hidden, a.heads, a.ffn, a.vocab, a.batch, a.seq, a.threads);
  std::printf("engine: %s\n", describeTorchVersions().c_str());
  std::printf("matmul_peak_gflops=%.1f (float32 1024x1024, best of 10)\n", peak);
  const std::string blas = loadedBlasLibrary();
  std::printf("engine BLAS: %s\n", blas.c_str());

  const EngineResult engine = timeEngineSteps(a, c10::Device(c10::kCPU), Precision::Float32);
  const double tokens = double(a.batch) * a.seq;
  const double flops = countedFlopsPerStep(a);
  const double engineTps = tokens / engine.seconds;
  std::printf("engine  ms_per_step=%.1f tokens_per_s=%.1f gflops=%.1f peak_rss_mb=%.1f loss=%.4f\n",
              engine.seconds * 1000, engineTps, flops / engine.seconds / 1e9, peakRssMb(),
              engine.loss);
  std::printf("counted_gflop_per_step=%.2f (6 x encoder params x tokens + attention products)\n",
              flops / 1e9);
  std::printf("mfu=%.3f (counted GFLOP/s over the measured matmul peak)\n",
              flops / engine.seconds / 1e9 / peak);

  double t113 = 0, eager = 0, compiled = 0;
  if (a.python) {
    // The same BLAS library for Debian's PyTorch: point the loader at the engine's folder
    // (the wheel's PyTorch carries its own MKL and ignores it).
    ReferenceRun run;
    run.python = a.pythonExe;
    run.script = a.script;
    run.env = "LD_LIBRARY_PATH=" + blas.substr(0, blas.find_last_of('/'));
    t113 = runReference(a, run, flops);
    if (!a.torch2Python.empty()) {
      run.python = a.torch2Python;
      eager = runReference(a, run, flops);
      run.mode = "compile";
      compiled = runReference(a, run, flops);
    } else {
      std::printf(
          "no PyTorch 2.x reference: run packaging/setup-cuda.sh or pass "
          "--torch2-python\n");
    }
  }
  const auto ratio = [&](double tps) { return tps > 0 ? engineTps / tps : 0.0; };
  std::printf("engine_vs_torch2_eager=%.2f engine_vs_torch2_compile=%.2f engine_vs_torch113=%.2f\n",
              ratio(eager), ratio(compiled), ratio(t113));
  return (a.python && t113 <= 0) ? 1 : 0;
}
