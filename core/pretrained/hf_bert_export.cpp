#include "core/pretrained/hf_bert_export.h"

#include "core/checkpoint/checkpoint_store.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/pretrained/hf_bert_names.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/pretrained/pretrained_folder.h"
#include "core/pretrained/safetensors_writer.h"
#include "core/runtime/remove_tree.h"

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <fstream>
#include <system_error>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

/// One refusal line per setting that changes what a standard BERT computes.
void addIf(std::vector<std::string>& out, bool on, const std::string& key, const std::string& value,
           const char* why) {
  if (on) out.push_back(key + " = " + value + ": " + why);
}

std::string asText(bool v) {
  return v ? "true" : "false";
}

}  // namespace

std::vector<std::string> hfBertRefusals(const RunConfig& c) {
  std::vector<std::string> out;
  const auto& a = c.attention;
  addIf(out, c.model.norm != NormPlacement::Post, "model.norm", choiceText(c.model.norm),
        "BERT normalises after each sublayer (post), with no final LayerNorm");
  addIf(out, c.model.position != PositionEncoding::Learned, "model.position",
        choiceText(c.model.position), "BERT adds a learned position table to the embeddings");
  addIf(out, c.model.attentionWindow > 0, "model.attention_window",
        std::to_string(c.model.attentionWindow), "BERT's every layer attends to every token");
  addIf(out, c.model.feedForward != FeedForward::Gelu, "model.feed_forward",
        choiceText(c.model.feedForward), "BERT's feed-forward block is GELU(x W1) W2");
  addIf(out, !c.model.bias, "model.bias", asText(c.model.bias),
        "every BERT linear layer and LayerNorm has a bias");
  addIf(out, a.position.mode != PositionMode::None, "attention.position.mode",
        choiceText(a.position.mode), "position interaction terms in the attention scores");
  addIf(out, a.temperature, "attention.temperature", asText(a.temperature),
        "learnable per-head temperatures scale the queries, keys and values");
  addIf(out, a.conv != ConvAttention::None, "attention.conv", choiceText(a.conv),
        "a convolution over the attention probabilities");
  addIf(out, a.residual != ResidualScores::None, "attention.residual", choiceText(a.residual),
        "RealFormer adds the previous layer's attention scores");
  addIf(out, a.outputGate != OutputGate::None, "attention.output_gate", choiceText(a.outputGate),
        "gated attention multiplies each head's output by a learned sigmoid gate");
  addIf(out, a.qkNorm != QkNorm::None, "attention.qk_norm", choiceText(a.qkNorm),
        "QK-norm normalises each head's queries and keys before the scores");
  addIf(out, a.normalizer != Normalizer::Softmax, "attention.normalizer", choiceText(a.normalizer),
        "BertForMaskedLM's attention normalises each row with a softmax");
  addIf(out, a.differential, "attention.differential", asText(a.differential),
        "differential attention subtracts a second softmax map and normalises each head");
  addIf(out, a.blur.target != BlurTarget::None, "attention.blur.target", choiceText(a.blur.target),
        "SesameBERT's Gaussian blur of the context or values");
  addIf(out, a.squeeze.enabled, "attention.squeeze.enabled", asText(a.squeeze.enabled),
        "SesameBERT's squeeze-and-excitation weighs the layers' outputs");
  return out;
}

namespace {

at::Tensor parameter(const std::map<std::string, at::Tensor>& p, const std::string& name) {
  const auto it = p.find(name);
  if (it == p.end()) throw DataError(name, "parameter missing from the checkpoint");
  return it->second.to(torch::kFloat).contiguous();
}

/// The names the table and the positions account for, and what is left out on purpose.
void checkAccounted(const std::map<std::string, at::Tensor>& parameters,
                    const std::map<std::string, bool>& mapped, std::vector<std::string>& leftOut) {
  for (const auto& [name, tensor] : parameters) {
    if (mapped.count(name)) continue;
    if (name.rfind("adversaries.", 0) == 0) {
      leftOut.push_back(name);  // ASA's adversaries: training only
      continue;
    }
    throw DataError(name, "parameter has no counterpart in a BertForMaskedLM");
  }
}

}  // namespace

std::map<std::string, at::Tensor> hfBertTensorsOf(
    const std::map<std::string, at::Tensor>& parameters, const ModelConfig& model,
    std::vector<std::string>& leftOut) {
  const HfBertLayout at = hfBertLayoutOf("bert", 0);
  std::map<std::string, at::Tensor> out;
  std::map<std::string, bool> mapped;
  for (const auto& [ours, names] : hfBertParameterSources(model.layers, at)) {
    const auto value = parameter(parameters, ours);
    mapped[ours] = true;
    const auto parts = value.chunk(static_cast<int64_t>(names.size()), 0);
    for (size_t i = 0; i < names.size(); ++i) out[names[i]] = parts[i].contiguous();
  }
  const auto words = out.at(at.encoder + "embeddings.word_embeddings.weight");
  // Token type 0 is added to every token by BERT: a zero row keeps AttnLab's positions exact.
  out[hfTokenTypeTensor(at)] = torch::zeros({1, words.size(1)}, torch::kFloat);
  if (model.positionEmbeddings) {
    out[hfPositionTensor(at)] = parameter(parameters, "position_embedding.weight");
    mapped["position_embedding.weight"] = true;
  } else {  // no positions: a zero table adds nothing, as AttnLab does
    out[hfPositionTensor(at)] = torch::zeros({model.maxPositions, words.size(1)}, torch::kFloat);
  }
  checkAccounted(parameters, mapped, leftOut);
  return out;
}

void writeHfBertModel(const fs::path& folder, const std::map<std::string, at::Tensor>& bertTensors,
                      const ModelConfig& m, int vocabSize, int padId) {
  std::vector<SafetensorsTensorView> views;
  for (const auto& [name, t] : bertTensors) {
    const auto bytes = std::span<const std::byte>(static_cast<const std::byte*>(t.data_ptr()),
                                                  static_cast<size_t>(t.nbytes()));
    views.push_back({name, SafetensorsDtype::F32, t.sizes().vec(), bytes});
  }
  writeSafetensors(folder / "model.safetensors", views);
  ordered_json c = {{"architectures", {"BertForMaskedLM"}},
                    {"model_type", "bert"},
                    {"vocab_size", vocabSize},
                    {"hidden_size", m.hiddenSize},
                    {"num_hidden_layers", m.layers},
                    {"num_attention_heads", m.heads},
                    {"intermediate_size", m.ffnSize},
                    {"hidden_act", "gelu"},
                    {"hidden_dropout_prob", m.dropout},
                    {"attention_probs_dropout_prob", m.attentionDropout},
                    {"max_position_embeddings", m.maxPositions},
                    {"type_vocab_size", 1},
                    {"initializer_range", m.initStd},
                    {"layer_norm_eps", m.layerNormEps},
                    {"pad_token_id", padId},
                    {"position_embedding_type", "absolute"},
                    {"is_decoder", false},
                    {"add_cross_attention", false},
                    {"tie_word_embeddings", true},
                    {"dtype", "float32"}};
  std::ofstream out(folder / "config.json");
  out << c.dump(2) << '\n';
  if (!out.flush()) throw DataError((folder / "config.json").string(), "cannot be written");
}

namespace {

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                   (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
                   static_cast<std::uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += digits[(n >> s) & 63];
  }
  if (i < bytes.size()) {
    const bool two = i + 1 < bytes.size();
    const auto n = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                   (two ? static_cast<std::uint8_t>(bytes[i + 1]) << 8 : 0);
    out += digits[(n >> 18) & 63];
    out += digits[(n >> 12) & 63];
    out += two ? digits[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

const std::vector<std::string>& specialPieces() {
  static const std::vector<std::string> pieces = {"<pad>", "<s>", "</s>", "<mask>", "<unk>"};
  return pieces;
}

/// The ids of AttnLab's special pieces in the model (by text).
std::map<std::string, int> specialIds(const SentencePieceModelFile& m, const std::string& where) {
  std::map<std::string, int> ids;
  for (size_t i = 0; i < m.pieces.size(); ++i)
    for (const auto& s : specialPieces())
      if (m.pieces[i].piece == s && !ids.count(s)) ids[s] = static_cast<int>(i);
  for (const auto& s : specialPieces())
    if (!ids.count(s)) throw DataError(where, "has no " + s + " piece: not an AttnLab tokenizer");
  return ids;
}

ordered_json replace(const ordered_json& pattern, const std::string& content) {
  return {{"type", "Replace"}, {"pattern", pattern}, {"content", content}};
}

/// SentencePiece's normalizer in its own order, as transformers' converter writes it.
ordered_json normalizerOf(const SentencePieceModelFile& m) {
  ordered_json steps = ordered_json::array();
  if (!m.precompiledCharsmap.empty())
    steps.push_back(
        {{"type", "Precompiled"}, {"precompiled_charsmap", base64(m.precompiledCharsmap)}});
  if (m.removeExtraWhitespaces) {  // only spaces: SentencePiece leaves other whitespace alone
    steps.push_back(replace({{"Regex", "\\A +| +\\z"}}, ""));
    steps.push_back(replace({{"Regex", " {2,}"}}, " "));
  }
  if (m.escapeWhitespaces) steps.push_back(replace({{"String", " "}}, "\u2581"));
  // Metaspace adds no prefix to a text that already starts with one; SentencePiece does.
  if (m.addDummyPrefix) steps.push_back(replace({{"Regex", "\\A\u2581"}}, "\u2581\u2581"));
  return {{"type", "Sequence"}, {"normalizers", steps}};
}

ordered_json decoderOf(const SentencePieceModelFile& m) {
  ordered_json steps = {replace({{"String", "\u2581"}}, " ")};
  if (m.byteFallback) steps.push_back({{"type", "ByteFallback"}});
  if (m.addDummyPrefix || m.byteFallback) steps.push_back({{"type", "Fuse"}});
  if (m.addDummyPrefix)
    steps.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
  return {{"type", "Sequence"}, {"decoders", steps}};
}

ordered_json templateOf(int bos, int eos) {
  const auto special = [](const char* id) {
    return ordered_json{{"SpecialToken", {{"id", id}, {"type_id", 0}}}};
  };
  const auto sequence = [](const char* id) {
    return ordered_json{{"Sequence", {{"id", id}, {"type_id", 0}}}};
  };
  return {
      {"type", "TemplateProcessing"},
      {"single", {special("<s>"), sequence("A"), special("</s>")}},
      {"pair", {special("<s>"), sequence("A"), special("</s>"), sequence("B"), special("</s>")}},
      {"special_tokens",
       {{"</s>", {{"id", "</s>"}, {"ids", {eos}}, {"tokens", {"</s>"}}}},
        {"<s>", {{"id", "<s>"}, {"ids", {bos}}, {"tokens", {"<s>"}}}}}}};
}

void refuseUnconverted(const SentencePieceModelFile& m, const std::string& where) {
  if (m.algorithm != SentencePieceAlgorithm::Unigram)
    throw DataError(where, std::string("tokenizer.algorithm = ") + algorithmName(m.algorithm) +
                               ": only unigram SentencePiece models are exported to Hugging "
                               "Face's tokenizer.json (train the run with the default "
                               "tokenizer.algorithm = \"unigram\")");
  if (m.whitespaceAsSuffix)
    throw DataError(where, "treat_whitespace_as_suffix: Metaspace cannot express it");
}

}  // namespace

std::string hfTokenizerJson(const SentencePieceModelFile& m, const std::string& where) {
  refuseUnconverted(m, where);
  const auto ids = specialIds(m, where);
  ordered_json added = ordered_json::array();
  for (const auto& [piece, id] : ids)
    added.push_back({{"id", id},
                     {"content", piece},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  std::sort(added.begin(), added.end(),
            [](const auto& a, const auto& b) { return a["id"] < b["id"]; });
  ordered_json vocab = ordered_json::array();
  for (const auto& p : m.pieces) vocab.push_back({p.piece, static_cast<double>(p.score)});
  ordered_json pre = ordered_json::array();
  if (m.addDummyPrefix)
    pre.push_back({{"type", "Metaspace"},
                   {"replacement", "\u2581"},
                   {"prepend_scheme", "always"},
                   {"split", false}});
  ordered_json t = {{"version", "1.0"},
                    {"truncation", nullptr},
                    {"padding", nullptr},
                    {"added_tokens", added},
                    {"normalizer", normalizerOf(m)},
                    {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", pre}}},
                    {"post_processor", templateOf(ids.at("<s>"), ids.at("</s>"))},
                    {"decoder", decoderOf(m)},
                    {"model",
                     {{"type", "Unigram"},
                      {"unk_id", m.unkId},
                      {"vocab", vocab},
                      {"byte_fallback", m.byteFallback}}}};
  return t.dump();
}

namespace {

void writeText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw DataError(file.string(), "cannot be written");
}

ordered_json specialTokensMap() {
  return {{"bos_token", "<s>"},    {"eos_token", "</s>"},  {"unk_token", "<unk>"},
          {"sep_token", "</s>"},   {"pad_token", "<pad>"}, {"cls_token", "<s>"},
          {"mask_token", "<mask>"}};
}

}  // namespace

void writeHfTokenizer(const fs::path& folder, const fs::path& spModel,
                      const SentencePieceModelFile& model, int maxLength) {
  writeText(folder / "tokenizer.json", hfTokenizerJson(model, spModel.string()));
  ordered_json config = {{"tokenizer_class", "PreTrainedTokenizerFast"},
                         {"model_max_length", maxLength},
                         {"model_input_names", {"input_ids", "attention_mask"}},
                         {"clean_up_tokenization_spaces", false}};
  config.update(specialTokensMap());
  writeText(folder / "tokenizer_config.json", config.dump(2) + "\n");
  writeText(folder / "special_tokens_map.json", specialTokensMap().dump(2) + "\n");
  std::error_code ec;
  fs::copy_file(spModel, folder / "tokenizer.model", fs::copy_options::overwrite_existing, ec);
  if (ec) throw DataError(spModel.string(), "cannot be copied: " + ec.message());
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
/// the pad id.
int copyRunsPretrainedTokenizer(const fs::path& tmp, const HfExportOptions& o, std::int64_t rows) {
  const fs::path folder = o.checkpoint.parent_path().parent_path() / "tokenizer";
  const auto tokenizer = loadHuggingFaceTokenizer(folder);
  if (tokenizer->vocabSize() > rows)
    throw notTheRunsTokenizer(folder, tokenizer->vocabSize(), rows);
  copyPretrainedTokenizer(folder, tmp);
  return tokenizer->specialIds().pad;
}

/// The run's own SentencePiece model as tokenizer.json and its companions. Returns the pad id.
int writeRunsSentencePiece(const fs::path& tmp, const HfExportOptions& o, const RunConfig& config,
                           const CheckpointData& data, std::int64_t rows) {
  const fs::path spPath = tokenizerOf(o, data);
  const SentencePieceModelFile sp = readSentencePieceModel(spPath);
  if (rows != static_cast<std::int64_t>(sp.pieces.size()))
    throw notTheRunsTokenizer(spPath, static_cast<std::int64_t>(sp.pieces.size()), rows);
  int padId = 0;
  for (size_t i = 0; i < sp.pieces.size(); ++i)
    if (sp.pieces[i].piece == "<pad>") padId = static_cast<int>(i);
  writeHfTokenizer(tmp, spPath, sp, config.data.sequenceLength);
  return padId;
}

void writeFolder(const fs::path& tmp, const HfExportOptions& o, const RunConfig& config,
                 const CheckpointData& data, HfExportResult& result) {
  const auto bert = hfBertTensorsOf(modelParameters(data), config.model, result.leftOut);
  const auto rows = bert.at("bert.embeddings.word_embeddings.weight").size(0);
  const bool pretrainedTokenizer = !config.model.initFrom.empty() && o.tokenizerModel.empty();
  const int padId = pretrainedTokenizer ? copyRunsPretrainedTokenizer(tmp, o, rows)
                                        : writeRunsSentencePiece(tmp, o, config, data, rows);
  writeHfBertModel(tmp, bert, config.model, static_cast<int>(rows), padId);
}

}  // namespace

HfExportResult exportHuggingFaceModel(const HfExportOptions& o) {
  const CheckpointData data = CheckpointStore::load(o.checkpoint);
  const RunConfig config =
      parseRunConfig(data.metadata.configToml, o.checkpoint.string() + " (stored configuration)");
  const auto refusals = hfBertRefusals(config);
  if (!refusals.empty()) {
    std::string list;
    for (const auto& r : refusals) list += "\n  " + r;
    throw ConfigError(o.checkpoint.string(),
                      "a standard BertForMaskedLM cannot compute this model:" + list);
  }
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
