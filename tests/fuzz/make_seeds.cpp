// Writes the small seeds that the real run in make_seeds.sh cannot give cheaply, with the
// project's own writers, so they are real files of the formats the harnesses read:
//   <out>/fuzz_run_log/{writer-small.h5, writer-live.h5}   RunLogWriter: a few scalars, a
//       per-layer series, a gzip-compressed snapshot series, a probe batch, checkpoint rows
//       and events; "live" is a copy taken while the writer still had the file open (SWMR)
//   <out>/fuzz_checkpoint/writer-dtypes.h5    CheckpointStore::save: one tensor of every
//       supported dtype, a 0-d and an empty one, groups, attributes, blobs, the config
//   <out>/fuzz_token_store/writer-ids{16,32}.bin   TokenStore::write with 2- and 4-byte ids
//   <out>/fuzz_config_json/<preset>.json     toJson() of each config in <configs-folder>
// Usage: attnlab_fuzz_make_seeds <out-folder> [<configs-folder>]

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/data/token_store.h"
#include "core/runlog/run_log_writer.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace attnlab::core;

namespace {

std::string smallConfigToml() {
  return toToml(parseRunConfig(
      "[run]\nname = \"seed\"\n[model]\nlayers = 2\nhidden_size = 8\nheads = 2\nffn_size = 16\n"
      "max_positions = 16\n[data]\nsequence_length = 8\n[tokenizer]\nvocab_size = 40\n",
      "seed.toml"));
}

void writeRunLogs(const fs::path& out) {
  const fs::path dir = out / "fuzz_run_log";
  fs::create_directories(dir);
  const RunConfig config = parseRunConfig(smallConfigToml(), "seed.toml");
  RunLogSchema schema;
  schema.runName = "seed";
  schema.configToml = toToml(config);
  schema.configJson = toJson(config);
  schema.tokenizerPieces = {"<pad>", "<s>", "</s>", "<mask>", "<unk>", "\xE2\x96\x81the", "cat"};
  schema.scalarNames = {"train/loss", "eval/loss"};
  schema.series = {
      TensorSeriesSpec{"asa/mask_proportion", {2}, hdf5::ElementType::Float32, 4, 0},
      TensorSeriesSpec{
          "snapshots/probabilities", {2, 1, 2, 3, 3}, hdf5::ElementType::Float16, 2, 1},
  };
  schema.probeSequences = 1;
  schema.probeLength = 3;
  schema.probeIds = {1, 5, 2};
  schema.probePieces = {"<s>", "\xE2\x96\x81the", "</s>"};

  const fs::path path = dir / "writer-small.h5";
  fs::remove(path);
  RunLogWriter writer(path.string(), schema, 0.05);
  for (int step = 1; step <= 3; ++step) {
    writer.appendScalar("train/loss", step, 4.0 - 0.5 * step);
    writer.appendSeries("asa/mask_proportion", step, std::vector<float>{0.5f, 0.25f});
    writer.appendSeries("snapshots/probabilities", step, std::vector<float>(2 * 2 * 9, 1.0f / 3));
  }
  writer.appendScalar("eval/loss", 2, 3.5);
  writer.addCheckpoint(2, "checkpoints/step-0000002.h5", 3.5);
  writer.addEvent(2, "resume", "resumed from step 2");
  writer.sync();
  fs::copy_file(path, dir / "writer-live.h5", fs::copy_options::overwrite_existing);
  writer.addEvent(3, "stop", "finished");
  writer.close();
}

void writeCheckpoint(const fs::path& out) {
  const fs::path dir = out / "fuzz_checkpoint";
  fs::create_directories(dir);
  const fs::path runDir = fs::temp_directory_path() / "attnlab-make-seeds-run";
  fs::remove_all(runDir);
  CheckpointStore store(runDir, 1, false);
  std::map<std::string, at::Tensor> tensors;
  tensors["model/embeddings.weight"] = torch::arange(12, torch::kFloat).reshape({3, 4});
  tensors["model/layer.bias"] = torch::ones({3}, torch::kHalf);
  tensors["model/layer.scale"] = torch::full({2}, 0.5, torch::kBFloat16);
  tensors["optimizer/model.layer.bias/exp_avg"] = torch::zeros({3}, torch::kDouble);
  tensors["optimizer/step"] = torch::tensor(7, torch::kLong);
  tensors["extra/int32"] = torch::arange(3, torch::kInt);
  tensors["extra/int16"] = torch::arange(3, torch::kShort);
  tensors["extra/int8"] = torch::arange(3, torch::kChar);
  tensors["extra/uint8"] = torch::arange(3, torch::kByte);
  tensors["extra/bool"] = torch::tensor({true, false});
  tensors["extra/empty"] = torch::zeros({0, 2});
  CheckpointMetadata meta;
  meta.configToml = smallConfigToml();
  meta.attributes["run_name"] = "seed";
  meta.attributes["tokenizer_model"] = "tokenizer.model";
  meta.blobs["cpu_rng"] = {1, 2, 3, 4, 5};
  const fs::path saved = store.save(2, 3.5, tensors, meta);
  fs::copy_file(saved, dir / "writer-dtypes.h5", fs::copy_options::overwrite_existing);
  fs::remove_all(runDir);
}

void writeTokenStores(const fs::path& out) {
  const fs::path dir = out / "fuzz_token_store";
  fs::create_directories(dir);
  const std::vector<std::vector<std::int32_t>> lines = {{5, 6, 7}, {}, {8}, {9, 10}};
  TokenStore::write(dir / "writer-ids16.bin", lines, 40, 0x00C0FFEE00C0FFEEull,
                    0x7070707070707070ull);
  TokenStore::write(dir / "writer-ids32.bin", {{70000, 3}, {69999}}, 70001, 0x1234, 0x5678);
}

void writeJsonConfigs(const fs::path& out, const fs::path& configs) {
  const fs::path dir = out / "fuzz_config_json";
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(configs)) {
    if (entry.path().extension() != ".toml") continue;
    std::ofstream(dir / (entry.path().stem().string() + ".json"), std::ios::trunc)
        << toJson(loadRunConfig(entry.path()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s <out-folder> [<configs-folder>]\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  writeRunLogs(out);
  writeCheckpoint(out);
  writeTokenStores(out);
  if (argc == 3) writeJsonConfigs(out, argv[2]);
  return 0;
}
