#include "core/pretrained/hf_model_export.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/pretrained/hf_bert_export.h"
#include "core/pretrained/hf_modernbert_export.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/pretrained/hf_tokenizer_export.h"
#include "core/pretrained/pretrained_folder.h"
#include "core/pretrained/sentencepiece_model_file.h"
#include "core/runtime/remove_tree.h"

#include <ATen/core/Tensor.h>

#include <unistd.h>
#include <algorithm>
#include <map>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

HfArchitecture hfExportArchitectureOf(const ModelConfig& model) {
  return model.position == PositionEncoding::Rope ? HfArchitecture::ModernBert
                                                  : HfArchitecture::Bert;
}

const char* hfArchitectureName(HfArchitecture architecture) {
  return architecture == HfArchitecture::ModernBert ? "ModernBertForMaskedLM" : "BertForMaskedLM";
}

std::vector<std::string> hfExportRefusals(const RunConfig& config, HfArchitecture architecture) {
  return architecture == HfArchitecture::ModernBert ? hfModernBertRefusals(config)
                                                    : hfBertRefusals(config);
}

namespace {

fs::path tokenizerOf(const HfExportOptions& o, const CheckpointData& data) {
  if (!o.tokenizerModel.empty()) return o.tokenizerModel;
  const fs::path runDirModel = o.checkpoint.parent_path().parent_path() / "tokenizer.model";
  std::error_code ec;
  if (fs::is_regular_file(runDirModel, ec)) return runDirModel;
  const auto recorded = data.metadata.attributes.find("tokenizer_model");
  return recorded != data.metadata.attributes.end() ? fs::path(recorded->second) : runDirModel;
}

/// Refuses an existing non-empty `out` unless asked to replace it.
void checkTarget(const HfExportOptions& o) {
  std::error_code ec;
  if (!fs::exists(o.out, ec)) return;
  if (!fs::is_directory(o.out, ec)) throw DataError(o.out.string(), "exists and is not a folder");
  if (!fs::is_empty(o.out, ec) && !o.overwrite)
    throw DataError(o.out.string(), "exists and is not empty (--force replaces it)");
}

/// Moves the finished `tmp` folder to `out`, replacing what is there (checked before).
void publish(const fs::path& tmp, const fs::path& out) {
  std::error_code ec;
  fs::path old;
  if (fs::exists(out, ec)) {
    old = out;
    old += ".old-" + std::to_string(::getpid());
    fs::rename(out, old, ec);
    if (ec) throw DataError(out.string(), "cannot be replaced: " + ec.message());
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    if (!old.empty()) fs::rename(old, out, ec);
    throw DataError(out.string(), "cannot be created from " + tmp.string() + ": " + ec.message());
  }
  if (!old.empty()) removeTree(old);
}

std::map<std::string, at::Tensor> modelParameters(const CheckpointData& data) {
  std::map<std::string, at::Tensor> p;
  for (const auto& [key, tensor] : data.tensors)
    if (key.rfind("model/", 0) == 0) p[key.substr(6)] = tensor;
  return p;
}

/// "N pieces, the model has M token embeddings": a tokenizer that is not the run's.
DataError notTheRunsTokenizer(const fs::path& where, std::int64_t pieces, std::int64_t rows) {
  return DataError(where.string(), std::to_string(pieces) + " pieces, the model has " +
                                       std::to_string(rows) +
                                       " token embeddings: not the run's tokenizer");
}

/// A run started from a pretrained model (model.init_from) keeps that model's tokenizer in
/// <run>/tokenizer/, already in Hugging Face's format: its files are copied as they are, after
/// checking they read back with as many pieces as the model has embeddings, or fewer. Returns
/// its special ids.
SpecialTokenIds copyRunsPretrainedTokenizer(const fs::path& tmp, const HfExportOptions& o,
                                            std::int64_t rows) {
  const fs::path folder = o.checkpoint.parent_path().parent_path() / "tokenizer";
  const auto tokenizer = loadHuggingFaceTokenizer(folder);
  if (tokenizer->vocabSize() > rows)
    throw notTheRunsTokenizer(folder, tokenizer->vocabSize(), rows);
  copyPretrainedTokenizer(folder, tmp);
  return tokenizer->specialIds();
}

/// The run's own SentencePiece model as tokenizer.json and its companions. Returns the ids of
/// its special pieces.
SpecialTokenIds writeRunsSentencePiece(const fs::path& tmp, const HfExportOptions& o,
                                       const RunConfig& config, const CheckpointData& data,
                                       std::int64_t rows) {
  const fs::path spPath = tokenizerOf(o, data);
  const SentencePieceModelFile sp = readSentencePieceModel(spPath);
  if (rows != static_cast<std::int64_t>(sp.pieces.size()))
    throw notTheRunsTokenizer(spPath, static_cast<std::int64_t>(sp.pieces.size()), rows);
  writeHfTokenizer(tmp, spPath, sp, config.data.sequenceLength);  // refuses missing specials
  return hfSpecialTokenIds(sp, spPath.string());
}

void writeFolder(const fs::path& tmp, const HfExportOptions& o, const RunConfig& config,
                 const CheckpointData& data, HfExportResult& result) {
  const bool modern = result.architecture == HfArchitecture::ModernBert;
  const auto parameters = modelParameters(data);
  const auto tensors = modern ? hfModernBertTensorsOf(parameters, config.model, result.leftOut)
                              : hfBertTensorsOf(parameters, config.model, result.leftOut);
  const auto rows = parameters.at("token_embedding.weight").size(0);
  const bool pretrainedTokenizer = !config.model.initFrom.empty() && o.tokenizerModel.empty();
  const SpecialTokenIds special = pretrainedTokenizer
                                      ? copyRunsPretrainedTokenizer(tmp, o, rows)
                                      : writeRunsSentencePiece(tmp, o, config, data, rows);
  if (modern)
    writeHfModernBertModel(tmp, tensors, config.model, static_cast<int>(rows), special);
  else
    writeHfBertModel(tmp, tensors, config.model, static_cast<int>(rows), special.pad);
}

/// ConfigError listing what the run's architecture cannot compute, if anything.
void refuseWhatCannotBeComputed(const HfExportOptions& o, const RunConfig& config,
                                HfArchitecture architecture) {
  const auto refusals = hfExportRefusals(config, architecture);
  if (refusals.empty()) return;
  std::string list;
  for (const auto& r : refusals) list += "\n  " + r;
  throw ConfigError(o.checkpoint.string(), std::string("a standard ") +
                                               hfArchitectureName(architecture) +
                                               " cannot compute this model:" + list);
}

}  // namespace

HfExportResult exportHuggingFaceModel(const HfExportOptions& o) {
  const CheckpointData data = CheckpointStore::load(o.checkpoint);
  const RunConfig config =
      parseRunConfig(data.metadata.configToml, o.checkpoint.string() + " (stored configuration)");
  const HfArchitecture architecture = hfExportArchitectureOf(config.model);
  refuseWhatCannotBeComputed(o, config, architecture);
  checkTarget(o);
  fs::path tmp = o.out;
  tmp += ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  removeTree(tmp);
  fs::create_directories(tmp, ec);
  if (ec) throw DataError(tmp.string(), "cannot be created: " + ec.message());
  HfExportResult result;
  result.folder = o.out;
  result.step = data.step;
  result.architecture = architecture;
  try {
    writeFolder(tmp, o, config, data, result);
    publish(tmp, o.out);
  } catch (...) {
    removeTree(tmp);
    throw;
  }
  for (const auto& entry : fs::directory_iterator(o.out))
    result.files.push_back(entry.path().filename().string());
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace attnlab::core
