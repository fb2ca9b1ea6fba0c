#include "core/pretrained/hf_tokenizer_export.h"

#include "core/errors/error.h"
#include "core/pretrained/hf_export_tensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

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

SpecialTokenIds hfSpecialTokenIds(const SentencePieceModelFile& m, const std::string& where) {
  const auto ids = specialIds(m, where);
  SpecialTokenIds out;
  out.pad = ids.at("<pad>");
  out.bos = ids.at("<s>");
  out.eos = ids.at("</s>");
  out.mask = ids.at("<mask>");
  out.unk = ids.at("<unk>");
  return out;
}

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

ordered_json specialTokensMap() {
  return {{"bos_token", "<s>"},    {"eos_token", "</s>"},  {"unk_token", "<unk>"},
          {"sep_token", "</s>"},   {"pad_token", "<pad>"}, {"cls_token", "<s>"},
          {"mask_token", "<mask>"}};
}

}  // namespace

void writeHfTokenizer(const fs::path& folder, const fs::path& spModel,
                      const SentencePieceModelFile& model, int maxLength) {
  writeHfText(folder / "tokenizer.json", hfTokenizerJson(model, spModel.string()));
  ordered_json config = {{"tokenizer_class", "PreTrainedTokenizerFast"},
                         {"model_max_length", maxLength},
                         {"model_input_names", {"input_ids", "attention_mask"}},
                         {"clean_up_tokenization_spaces", false}};
  config.update(specialTokensMap());
  writeHfText(folder / "tokenizer_config.json", config.dump(2) + "\n");
  writeHfText(folder / "special_tokens_map.json", specialTokensMap().dump(2) + "\n");
  std::error_code ec;
  fs::copy_file(spModel, folder / "tokenizer.model", fs::copy_options::overwrite_existing, ec);
  if (ec) throw DataError(spModel.string(), "cannot be copied: " + ec.message());
}

}  // namespace attnlab::core
