#pragma once

// What the Hugging Face exports (hf_bert_export.h, hf_modernbert_export.h) share: the refusal
// lines of the attention mechanisms neither architecture computes, a checkpoint's parameters
// read as float32, the check that every parameter has a counterpart, and the writes.

#include "core/config/run_config.h"

#include <ATen/core/Tensor.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace attnlab::core {

/// Appends "<key> = <value>: <why>" to `out` when `on`: one refusal line per setting.
void addHfRefusal(std::vector<std::string>& out, bool on, const std::string& key,
                  const std::string& value, const char* why);

/// The attention mechanisms (attention.*) that change what a standard Hugging Face encoder
/// computes, one line each. Training-only mechanisms (guidance, ASA) are not among them.
std::vector<std::string> hfMechanismRefusals(const AttentionConfig& attention);

/// `parameters[name]` as a contiguous float32 CPU tensor; DataError naming it when missing.
at::Tensor exportedParameter(const std::map<std::string, at::Tensor>& parameters,
                             const std::string& name);

/// Every parameter is in `mapped` or training-only (ASA's adversaries, appended to
/// `leftOut`); DataError naming the first that has no counterpart in `architecture`.
void checkEveryParameterExported(const std::map<std::string, at::Tensor>& parameters,
                                 const std::map<std::string, bool>& mapped,
                                 std::vector<std::string>& leftOut,
                                 const std::string& architecture);

/// float32 tensors by name as a .safetensors file (metadata format = pt).
void writeHfTensors(const std::filesystem::path& file,
                    const std::map<std::string, at::Tensor>& tensors);

/// `text` as `file`'s bytes; DataError naming the file when it cannot be written.
void writeHfText(const std::filesystem::path& file, const std::string& text);

}  // namespace attnlab::core
