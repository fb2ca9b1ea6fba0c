#include "core/pretrained/hf_checkpoint_files.h"

#include "core/errors/error.h"

#include <torch/torch.h>

#include <fstream>
#include <map>

namespace attnlab::core {

namespace fs = std::filesystem;
using nlohmann::json;

json readHfConfig(const fs::path& folder) {
  const fs::path file = folder / "config.json";
  std::ifstream in(file);
  if (!in) throw DataError(file.string(), "missing: not a Hugging Face model folder");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(file.string(), std::string("not JSON: ") + e.what());
  }
}

int intField(const json& c, const char* key, const std::string& where) {
  if (!c.contains(key) || !c[key].is_number_integer() || c[key].get<long long>() < 0)
    throw DataError(where, std::string(key) + ": missing or not a non-negative integer");
  return c[key].get<int>();
}

/// A number field, `fallback` when absent; DataError naming it when it is not a number.
double realField(const json& c, const char* key, double fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_number()) throw DataError(where, std::string(key) + ": not a number");
  return c[key].get<double>();
}

namespace {

[[noreturn]] void missingWeights(const fs::path& folder) {
  const fs::path weights = folder / "model.safetensors";
  const bool pickle = fs::exists(folder / "pytorch_model.bin");
  throw DataError(weights.string(),
                  pickle ? "missing; pytorch_model.bin (a pickle) is not read: convert it with "
                           "`python -c \"from transformers import AutoModelForMaskedLM as M; "
                           "M.from_pretrained('DIR').save_pretrained('DIR', "
                           "safe_serialization=True)\"`"
                         : "missing (nor model.safetensors.index.json): not a Hugging Face model "
                           "folder");
}

/// The shards an index names: plain file names in `folder`, each tensor in the shard it says.
WeightFiles openShards(const fs::path& folder, const fs::path& index) {
  const std::string where = index.string();
  json doc;
  try {
    std::ifstream in(index);
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(where, std::string("not JSON: ") + e.what());
  }
  if (!doc.contains("weight_map") || !doc["weight_map"].is_object())
    throw DataError(where, "weight_map: missing or not an object");
  std::map<std::string, std::vector<std::string>> byShard;
  for (const auto& [tensor, shard] : doc["weight_map"].items()) {
    const std::string name = shard.is_string() ? shard.get<std::string>() : "";
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
      throw DataError(where, "weight_map \"" + tensor + "\": " + shard.dump() +
                                 " is not a file name in the model's folder");
    byShard[name].push_back(tensor);
  }
  WeightFiles w{{}, where};
  for (const auto& [shard, tensors] : byShard) {
    w.files.emplace_back(folder / shard);
    for (const auto& t : tensors)
      if (w.files.back().find(t) == nullptr)
        throw DataError((folder / shard).string(), "tensor \"" + t + "\" missing, though " +
                                                       index.filename().string() +
                                                       " places it here");
  }
  return w;
}

}  // namespace

WeightFiles openWeights(const fs::path& folder) {
  const fs::path single = folder / "model.safetensors";
  if (fs::exists(single)) {
    WeightFiles w{{}, single.string()};
    w.files.emplace_back(single);
    return w;
  }
  const fs::path index = folder / "model.safetensors.index.json";
  if (fs::exists(index)) return openShards(folder, index);
  missingWeights(folder);
}

/// One checkpoint tensor as float32: F32 read in place from the mapping (valid while
/// `weights` lives; only read, then copied once into its parameter), F16, BF16 and F64
/// converted into a new tensor.
torch::Tensor tensorOf(const WeightFiles& weights, const std::string& name) {
  const auto [file, e] = weights.find(name);
  if (e == nullptr) throw DataError(weights.where, "tensor \"" + name + "\" missing");
  const auto type = e->dtype == SafetensorsDtype::F32    ? torch::kFloat
                    : e->dtype == SafetensorsDtype::F16  ? torch::kHalf
                    : e->dtype == SafetensorsDtype::BF16 ? torch::kBFloat16
                    : e->dtype == SafetensorsDtype::F64  ? torch::kDouble
                                                         : torch::kLong;
  const auto bytes = file->bytes(*e);
  // from_blob takes a non-const pointer; the mapping is read-only and nothing writes here.
  void* data = const_cast<std::byte*>(bytes.data());
  const auto mapped = torch::from_blob(data, e->shape, torch::dtype(type));
  return mapped.to(torch::kFloat);
}

void assign(torch::Tensor& parameter, const torch::Tensor& value, const std::string& name,
            const std::string& where) {
  if (parameter.sizes() != value.sizes())
    throw DataError(where, "tensor for " + name + " has shape " + c10::str(value.sizes()) +
                               ", the model's config.json implies " + c10::str(parameter.sizes()));
  parameter.copy_(value);
}

}  // namespace attnlab::core
