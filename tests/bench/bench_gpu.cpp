// GPU pretraining speed (issue 24): a BERT-base-shaped encoder (12 layers, hidden 768, 12
// heads, FFN 3072, vocabulary 30522, MLM on 15% of tokens) trained by the engine's own step
// in bfloat16 at sequence 128 and 512, against the same model in PyTorch 2.x eager (SDPA)
// and torch.compile on the same card in the same run. Prints tokens/s and model FLOPs
// utilisation against the card's dense bfloat16 peak (read from its name). A benchmark, not
// a test. Without a GPU it prints "gpu: none" and exits 0. Last line:
//   gpu_tokens_per_s=<n> gpu_mfu=<r> gpu_vs_torch_compile=<r>   (sequence 128)
// --profile DIR: also profiles 3 more steps of each (engine and both references) and prints
// where the device time goes; Chrome traces land in DIR.
// --modernbert (issue 43): instead, ModernBERT-base's shape (22 layers, hidden 768, 12 heads,
// GeGLU 1152, vocabulary 50368, a 128-token window in two of every three layers) at sequence
// 512 in the engine's ModernBERT layout against transformers' own ModernBertForMaskedLM
// (SDPA) eager and compiled, same card, batch and bfloat16 autocast. Last line:
//   gpu_modernbert_tokens_per_s=<n> gpu_modernbert_vs_torch_eager=<r>
//   gpu_modernbert_vs_torch_compile=<r>
#include "core/runtime/compute_environment.h"
#include "core/runtime/gpu_info.h"
#include "tests/bench/engine_bench.h"
#include "tests/bench/kernel_profile.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace attnlab::core;
using namespace attnlab::bench;

namespace {

/// Dense bfloat16 tensor-core peak in TFLOP/s from the card's name (NVIDIA's datasheets);
/// 0 when the card is not in the table (MFU is then not reported).
double bf16PeakTflops(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("H100") || has("H200") || has("GH200")) return has("PCIe") ? 756.0 : 989.0;
  if (has("A100")) return 312.0;
  if (has("L40S")) return 362.0;
  if (has("L4")) return 121.0;
  if (has("A10")) return 125.0;
  return 0.0;
}

std::string defaultPython() {
  const std::string venv = std::string(ATTNLAB_SOURCE_DIR) + "/build/torch-venv/bin/python";
  if (std::FILE* f = std::fopen(venv.c_str(), "r")) {
    std::fclose(f);
    return venv;
  }
  return "python3";
}

struct SeqResult {
  double tokensPerS = 0, mfu = 0, vsEager = 0, vsCompile = 0;
};

constexpr int kProfiledSteps = 3;

/// BERT-base's shape, or with `modernbert` ModernBERT-base's (its config.json on the Hub).
ModelShape baseShape(bool modernbert, int seq, int batch) {
  ModelShape s;
  if (modernbert)
    s.layers = 22, s.hidden = 768, s.heads = 12, s.ffn = 1152, s.vocab = 50368;
  else
    s.layers = 12, s.hidden = 768, s.heads = 12, s.ffn = 3072, s.vocab = 30522;
  s.modernbert = modernbert;
  s.seq = seq, s.batch = batch, s.steps = 20, s.warmup = 5;
  return s;
}

SeqResult benchSequence(const ModelShape& s, const GpuInfo& gpu, const std::string& python,
                        const std::string& profileDir) {
  const int seq = s.seq, batch = s.batch;
  const double flops = countedFlopsPerStep(s);
  KernelProfile profile;
  const auto profileSteps = [&](const MoreSteps& more) {
    profile = profileKernels([&] { more(kProfiledSteps); },
                             profileDir + "/engine_seq" + std::to_string(seq) + ".json", 20);
  };
  const EngineResult engine = timeEngineSteps(
      s, c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(gpu.index)), Precision::Bf16,
      profileDir.empty() ? std::function<void(const MoreSteps&)>() : profileSteps);
  SeqResult r;
  r.tokensPerS = double(s.batch) * s.seq / engine.seconds;
  const double peak = bf16PeakTflops(gpu.name);
  r.mfu = peak > 0 ? flops / engine.seconds / (peak * 1e12) : 0.0;
  std::printf(
      "seq %d batch %d: engine ms_per_step=%.1f tokens_per_s=%.0f tflops=%.1f mfu=%.3f "
      "loss=%.4f\n",
      seq, batch, engine.seconds * 1000, r.tokensPerS, flops / engine.seconds / 1e12, r.mfu,
      engine.loss);
  if (!profileDir.empty())
    printKernelProfile("engine seq " + std::to_string(seq) + " profile", profile, kProfiledSteps);
  ReferenceRun run;
  run.python = python;
  run.script = std::string(ATTNLAB_SOURCE_DIR) + "/tests/bench/pytorch_reference.py";
  run.device = "cuda";
  run.dtype = "bf16";
  run.model = s.modernbert ? "modernbert" : "bert";
  if (!profileDir.empty())
    run.env = "ATTNLAB_BENCH_PROFILE=" + profileDir + "/pytorch_seq" + std::to_string(seq);
  const double eager = runReference(s, run, flops);
  run.mode = "compile";
  const double compiled = runReference(s, run, flops);
  r.vsEager = eager > 0 ? r.tokensPerS / eager : 0.0;
  r.vsCompile = compiled > 0 ? r.tokensPerS / compiled : 0.0;
  std::printf("seq %d: engine_vs_torch2_eager=%.2f engine_vs_torch2_compile=%.2f\n", seq, r.vsEager,
              r.vsCompile);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string python = defaultPython();
  std::string profileDir;
  bool modernbert = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--python" && i + 1 < argc) {
      python = argv[++i];
    } else if (arg == "--profile" && i + 1 < argc) {
      profileDir = argv[++i];
    } else if (arg == "--modernbert") {
      modernbert = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--python PYTHON-WITH-CUDA-TORCH] [--profile DIR] [--modernbert]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("engine: %s\n", describeTorchVersions().c_str());
  const auto gpus = listGpus();
  if (gpus.empty()) {
    std::printf("gpu: none\n");
    return 0;
  }
  const GpuInfo& gpu = gpus.front();
  const double peak = bf16PeakTflops(gpu.name);
  std::printf("gpu: %s (dense bf16 peak %s)\n", describeGpu(gpu).c_str(),
              peak > 0 ? (std::to_string(static_cast<int>(peak)) + " TFLOP/s").c_str()
                       : "unknown: MFU not reported");
  if (modernbert) {
    const SeqResult r = benchSequence(baseShape(true, 512, 32), gpu, python, profileDir);
    std::printf(
        "gpu_modernbert_tokens_per_s=%.0f gpu_modernbert_vs_torch_eager=%.2f "
        "gpu_modernbert_vs_torch_compile=%.2f\n",
        r.tokensPerS, r.vsEager, r.vsCompile);
    return 0;
  }
  const SeqResult s128 = benchSequence(baseShape(false, 128, 256), gpu, python, profileDir);
  benchSequence(baseShape(false, 512, 64), gpu, python, profileDir);
  std::printf("gpu_tokens_per_s=%.0f gpu_mfu=%.3f gpu_vs_torch_compile=%.2f\n", s128.tokensPerS,
              s128.mfu, s128.vsCompile);
  return 0;
}
