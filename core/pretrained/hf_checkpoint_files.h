#pragma once

// What reading any Hugging Face model folder needs, shared by the BERT/RoBERTa import
// (hf_bert_import.cpp) and the ModernBERT import (hf_modernbert_import.cpp): config.json's
// fields checked by name, the checkpoint's tensors (model.safetensors or its shards) as
// float32, and a parameter filled from one with its shape checked.

#include "core/pretrained/safetensors_file.h"

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::core {

/// <folder>/config.json parsed; DataError when it is missing or not JSON.
nlohmann::json readHfConfig(const std::filesystem::path& folder);
/// A non-negative integer field; DataError naming it when missing or not one.
int intField(const nlohmann::json& c, const char* key, const std::string& where);
/// A number field, `fallback` when absent; DataError naming it when it is not a number.
double realField(const nlohmann::json& c, const char* key, double fallback,
                 const std::string& where);

/// The checkpoint's tensors: model.safetensors, or the shards model.safetensors.index.json
/// names (large checkpoints come so), each mapped.
struct WeightFiles {
  std::vector<SafetensorsFile> files;
  std::string where;  ///< named when a tensor is missing

  std::pair<const SafetensorsFile*, const SafetensorsEntry*> find(const std::string& name) const {
    for (const auto& f : files)
      if (const auto* e = f.find(name)) return {&f, e};
    return {nullptr, nullptr};
  }
};

/// model.safetensors or its shards; DataError naming the file when neither is there (with how
/// to convert a pytorch_model.bin).
WeightFiles openWeights(const std::filesystem::path& folder);
/// One checkpoint tensor as float32; DataError naming it when missing.
at::Tensor tensorOf(const WeightFiles& weights, const std::string& name);
/// parameter <- value, DataError naming both when the shapes differ.
void assign(at::Tensor& parameter, const at::Tensor& value, const std::string& name,
            const std::string& where);

}  // namespace attnlab::core
