#include "core/pretrained/hf_tokenizer.h"

#include "core/errors/error.h"
#include "core/tokenizer/byte_level_bpe_tokenizer.h"
#include "core/tokenizer/fairseq_sentencepiece_tokenizer.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "core/tokenizer/wordpiece_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace attnlab::core {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Merges = std::vector<std::pair<std::string, std::string>>;

json readJson(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(file.string(), "cannot be read");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw DataError(file.string(), std::string("not JSON: ") + e.what());
  }
}

/// tokenizer_config.json and special_tokens_map.json, either or both absent.
struct FolderConfig {
  fs::path configFile;
  json config = json::object();
  json map = json::object();
};

FolderConfig readFolderConfig(const fs::path& folder) {
  FolderConfig c;
  c.configFile = folder / "tokenizer_config.json";
  if (fs::exists(c.configFile)) c.config = readJson(c.configFile);
  const fs::path mapFile = folder / "special_tokens_map.json";
  if (fs::exists(mapFile)) c.map = readJson(mapFile);
  if (!c.config.is_object()) throw DataError(c.configFile.string(), "not a JSON object");
  if (!c.map.is_object()) throw DataError(mapFile.string(), "not a JSON object");
  return c;
}

/// A special token as the config files write it: a string, or an object with "content".
std::optional<json> configEntry(const FolderConfig& c, const char* key) {
  for (const json* j : {&c.config, &c.map}) {
    const auto it = j->find(key);
    if (it == j->end() || it->is_null()) continue;
    if (it->is_string() || (it->is_object() && it->contains("content"))) return *it;
  }
  return std::nullopt;
}

std::string entryContent(const json& entry) {
  return entry.is_string() ? entry.get<std::string>() : entry.at("content").get<std::string>();
}

bool flag(const json& obj, const char* key, bool fallback, const fs::path& file,
          const std::string& field) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw DataError(file.string(), field + key + ": not true or false");
  return it->get<bool>();
}

std::string text(const json& obj, const char* key, const fs::path& file, const std::string& field) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    throw DataError(file.string(), field + key + ": missing or not a string");
  }
  return it->get<std::string>();
}

AddedToken parseAddedToken(const json& j, int id, const fs::path& file, const std::string& field) {
  if (!j.is_object()) throw DataError(file.string(), field + ": not an object");
  AddedToken t;
  t.content = text(j, "content", file, field + ".");
  t.id = id;
  t.special = flag(j, "special", false, file, field + ".");
  t.lstrip = flag(j, "lstrip", false, file, field + ".");
  t.rstrip = flag(j, "rstrip", false, file, field + ".");
  t.singleWord = flag(j, "single_word", false, file, field + ".");
  t.normalized = flag(j, "normalized", !t.special, file, field + ".");
  return t;
}

std::vector<AddedToken> tokenizerJsonAdded(const json& doc, const fs::path& file) {
  std::vector<AddedToken> added;
  const auto it = doc.find("added_tokens");
  if (it == doc.end() || it->is_null()) return added;
  if (!it->is_array()) throw DataError(file.string(), "added_tokens: not a list");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string field = "added_tokens[" + std::to_string(i) + "]";
    const json& j = (*it)[i];
    if (!j.is_object() || !j.contains("id") || !j["id"].is_number_integer() ||
        j["id"].get<int>() < 0) {
      throw DataError(file.string(), field + ".id: missing or not a non-negative integer");
    }
    added.push_back(parseAddedToken(j, j["id"].get<int>(), file, field));
  }
  return added;
}

/// transformers 5 writes the added tokens into tokenizer_config.json's added_tokens_decoder.
std::vector<AddedToken> configAdded(const FolderConfig& c) {
  std::vector<AddedToken> added;
  const auto it = c.config.find("added_tokens_decoder");
  if (it == c.config.end() || !it->is_object()) return added;
  for (const auto& [key, value] : it->items()) {
    const std::string field = "added_tokens_decoder." + key;
    int id = -1;
    try {
      id = std::stoi(key);
    } catch (const std::exception&) {
    }
    if (id < 0) throw DataError(c.configFile.string(), field + ": the key is not a token id");
    added.push_back(parseAddedToken(value, id, c.configFile, field));
  }
  return added;
}

/// The pieces the engine needs, by role, and the config keys that name them.
struct SpecialRole {
  const char* role;
  std::vector<const char*> keys;
  int SpecialTokenIds::*member;
  const char* bert;
  const char* roberta;
};

const std::vector<SpecialRole>& specialRoles() {
  static const std::vector<SpecialRole> roles = {
      {"pad", {"pad_token"}, &SpecialTokenIds::pad, "[PAD]", "<pad>"},
      {"cls/bos", {"cls_token", "bos_token"}, &SpecialTokenIds::bos, "[CLS]", "<s>"},
      {"sep/eos", {"sep_token", "eos_token"}, &SpecialTokenIds::eos, "[SEP]", "</s>"},
      {"mask", {"mask_token"}, &SpecialTokenIds::mask, "[MASK]", "<mask>"},
      {"unk", {"unk_token"}, &SpecialTokenIds::unk, "[UNK]", "<unk>"}};
  return roles;
}

/// Each role's token: named by the config files, else BERT's or RoBERTa's default.
std::vector<json> specialEntries(const FolderConfig& c, TokenizerKind kind) {
  std::vector<json> entries;
  for (const auto& role : specialRoles()) {
    std::optional<json> entry;
    for (const char* key : role.keys) {
      if (!entry) entry = configEntry(c, key);
    }
    entries.push_back(
        entry.value_or(json(kind == TokenizerKind::WordPiece ? role.bert : role.roberta)));
  }
  return entries;
}

SpecialTokenIds resolveSpecialIds(const std::vector<json>& entries, const PieceIds& vocab,
                                  const std::vector<AddedToken>& added, const fs::path& file) {
  SpecialTokenIds ids;
  const auto& roles = specialRoles();
  for (std::size_t r = 0; r < roles.size(); ++r) {
    const std::string content = entryContent(entries[r]);
    int id = -1;
    for (const auto& t : added) {
      if (t.content == content) id = t.id;
    }
    if (const auto it = vocab.find(content); id < 0 && it != vocab.end()) id = it->second;
    if (id < 0) {
      throw DataError(file.string(), std::string("lacks the ") + roles[r].role + " token \"" +
                                         content + "\" (" + roles[r].keys[0] + ")");
    }
    ids.*roles[r].member = id;
  }
  return ids;
}

/// The special tokens of a folder without tokenizer.json, added as transformers adds them:
/// matched whole in the text as given; RoBERTa's mask takes the whitespace before it.
void addConfigSpecials(const std::vector<json>& entries, const PieceIds& vocab, TokenizerKind kind,
                       std::vector<AddedToken>& added) {
  for (std::size_t r = 0; r < entries.size(); ++r) {
    const std::string content = entryContent(entries[r]);
    const auto it = vocab.find(content);
    const bool present = std::any_of(added.begin(), added.end(),
                                     [&](const AddedToken& t) { return t.content == content; });
    if (it == vocab.end() || present) continue;
    AddedToken t{content, it->second};
    const bool mask = specialRoles()[r].member == &SpecialTokenIds::mask;
    t.lstrip = mask && kind == TokenizerKind::ByteLevelBpe;
    if (entries[r].is_object()) {
      t.lstrip = entries[r].value("lstrip", t.lstrip);
      t.rstrip = entries[r].value("rstrip", false);
      t.singleWord = entries[r].value("single_word", false);
    }
    added.push_back(t);
  }
}

PieceIds jsonVocab(const json& model, const fs::path& file) {
  const auto it = model.find("vocab");
  if (it == model.end() || !it->is_object()) {
    throw DataError(file.string(), "model.vocab: missing or not an object");
  }
  PieceIds vocab;
  for (const auto& [piece, id] : it->items()) {
    if (!id.is_number_integer() || id.get<int>() < 0) {
      throw DataError(file.string(),
                      "model.vocab \"" + piece + "\": not a non-negative integer id");
    }
    vocab[piece] = id.get<int>();
  }
  return vocab;
}

std::string typeOf(const json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return "null";
  if (!it->is_object() || !it->contains("type") || !(*it)["type"].is_string()) return "?";
  return (*it)["type"].get<std::string>();
}

std::unique_ptr<Tokenizer> wordPieceFromJson(const json& doc, const fs::path& file,
                                             const FolderConfig& config) {
  const json& model = doc["model"];
  if (typeOf(doc, "normalizer") != "BertNormalizer") {
    throw DataError(file.string(), "normalizer.type \"" + typeOf(doc, "normalizer") +
                                       "\" is not supported for WordPiece (BertNormalizer is)");
  }
  if (typeOf(doc, "pre_tokenizer") != "BertPreTokenizer") {
    throw DataError(file.string(), "pre_tokenizer.type \"" + typeOf(doc, "pre_tokenizer") +
                                       "\" is not supported for WordPiece (BertPreTokenizer is)");
  }
  const json& n = doc["normalizer"];
  WordPieceOptions o;
  o.cleanText = flag(n, "clean_text", true, file, "normalizer.");
  o.handleChineseChars = flag(n, "handle_chinese_chars", true, file, "normalizer.");
  o.lowercase = flag(n, "lowercase", true, file, "normalizer.");
  if (n.contains("strip_accents") && !n["strip_accents"].is_null()) {
    o.stripAccents = flag(n, "strip_accents", true, file, "normalizer.");
  }
  o.unkToken = text(model, "unk_token", file, "model.");
  if (model.contains("continuing_subword_prefix")) {
    o.continuingPrefix = text(model, "continuing_subword_prefix", file, "model.");
  }
  if (const auto it = model.find("max_input_chars_per_word"); it != model.end()) {
    if (!it->is_number_integer() || it->get<int>() <= 0) {
      throw DataError(file.string(), "model.max_input_chars_per_word: not a positive integer");
    }
    o.maxInputCharsPerWord = it->get<int>();
  }
  PieceIds vocab = jsonVocab(model, file);
  auto added = tokenizerJsonAdded(doc, file);
  const auto special =
      resolveSpecialIds(specialEntries(config, TokenizerKind::WordPiece), vocab, added, file);
  try {
    return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(o), std::move(added),
                                                special, file);
  } catch (const std::invalid_argument& e) {
    throw DataError(file.string(), std::string("model: ") + e.what());
  }
}

Merges jsonMerges(const json& model, const fs::path& file) {
  const auto it = model.find("merges");
  if (it == model.end() || !it->is_array()) {
    throw DataError(file.string(), "model.merges: missing or not a list");
  }
  Merges merges;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const auto space = s.find(' ');
      if (space != std::string::npos && s.find(' ', space + 1) == std::string::npos) {
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
        continue;
      }
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
      continue;
    }
    throw DataError(file.string(), "model.merges[" + std::to_string(i) +
                                       "]: not two pieces (\"a b\" or [\"a\", \"b\"])");
  }
  return merges;
}

void checkBpeModel(const json& doc, const fs::path& file) {
  const json& model = doc["model"];
  if (typeOf(doc, "normalizer") != "null") {
    throw DataError(file.string(), "normalizer.type \"" + typeOf(doc, "normalizer") +
                                       "\" is not supported for byte-level BPE (none is)");
  }
  if (typeOf(doc, "pre_tokenizer") != "ByteLevel") {
    throw DataError(file.string(), "pre_tokenizer.type \"" + typeOf(doc, "pre_tokenizer") +
                                       "\" is not supported for BPE (ByteLevel is)");
  }
  if (model.contains("dropout") && !model["dropout"].is_null()) {
    throw DataError(file.string(), "model.dropout: BPE dropout is not supported (null is)");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(key) && !model[key].is_null() && model[key] != "") {
      throw DataError(file.string(),
                      std::string("model.") + key + ": not supported for byte-level BPE");
    }
  }
  if (flag(model, "byte_fallback", false, file, "model.")) {
    throw DataError(file.string(), "model.byte_fallback: not supported for byte-level BPE");
  }
}

std::unique_ptr<Tokenizer> bpeFromJson(const json& doc, const fs::path& file,
                                       const FolderConfig& config) {
  checkBpeModel(doc, file);
  const json& model = doc["model"];
  ByteLevelBpeOptions o;
  o.addPrefixSpace = flag(doc["pre_tokenizer"], "add_prefix_space", true, file, "pre_tokenizer.");
  o.useRegex = flag(doc["pre_tokenizer"], "use_regex", true, file, "pre_tokenizer.");
  o.ignoreMerges = flag(model, "ignore_merges", false, file, "model.");
  if (model.contains("unk_token") && !model["unk_token"].is_null()) {
    o.unkToken = text(model, "unk_token", file, "model.");
  }
  PieceIds vocab = jsonVocab(model, file);
  const Merges merges = jsonMerges(model, file);
  auto added = tokenizerJsonAdded(doc, file);
  const auto special =
      resolveSpecialIds(specialEntries(config, TokenizerKind::ByteLevelBpe), vocab, added, file);
  try {
    return std::make_unique<ByteLevelBpeTokenizer>(std::move(vocab), merges, std::move(o),
                                                   std::move(added), special, file);
  } catch (const std::invalid_argument& e) {
    throw DataError(file.string(), std::string("model: ") + e.what());
  }
}

// XLM-R (model.type Unigram): the SentencePiece model beside tokenizer.json, read with fairseq's
// ids. What tokenizer.json says is checked against what that reading does: SentencePiece's
// normaliser (Precompiled, with the Strip and Replace that stand for its whitespace rules) and
// Metaspace with a "▁" before every stretch of text, and
// its vocabulary the model's pieces one id up behind <s> <pad> </s> <unk>.
void checkUnigramPipeline(const json& doc, const fs::path& file) {
  const std::string normalizer = typeOf(doc, "normalizer");
  bool normalizerOk = normalizer == "Precompiled";
  if (normalizer == "Sequence") {
    normalizerOk = true;
    for (const auto& n : doc["normalizer"].value("normalizers", json::array())) {
      const std::string t = n.is_object() ? n.value("type", "?") : "?";
      normalizerOk = normalizerOk && (t == "Precompiled" || t == "Replace" || t == "Strip");
    }
  }
  if (!normalizerOk)
    throw DataError(file.string(), "normalizer.type \"" + normalizer +
                                       "\" is not supported for Unigram (SentencePiece's own, "
                                       "Precompiled, is)");
  const json& pre = doc.contains("pre_tokenizer") ? doc["pre_tokenizer"] : json();
  const bool metaspace =
      typeOf(doc, "pre_tokenizer") == "Metaspace" && pre.value("replacement", "") == "\u2581" &&
      (pre.value("prepend_scheme", "") == "always" || pre.value("add_prefix_space", false));
  if (!metaspace)
    throw DataError(file.string(),
                    "pre_tokenizer: only Metaspace with \"\u2581\" before every "
                    "word (prepend_scheme \"always\") is supported for Unigram");
}

std::unique_ptr<Tokenizer> unigramFromJson(const json& doc, const fs::path& file,
                                           const FolderConfig& config) {
  const fs::path model = file.parent_path() / "sentencepiece.bpe.model";
  if (!fs::exists(model))
    throw DataError(file.string(),
                    "model.type \"Unigram\" is read through XLM-R's SentencePiece model, "
                    "sentencepiece.bpe.model, which the folder lacks (other Unigram layouts, "
                    "ALBERT's and T5's spiece.model, are not supported)");
  checkUnigramPipeline(doc, file);
  auto pieces = SentencePieceTokenizer::loadForeign(model);
  const json vocab = doc["model"].value("vocab", json());
  const int offset = FairseqSentencePieceTokenizer::kIdOffset;
  const int n = pieces.vocabSize();
  const auto pieceAt = [&](int id) {
    const json& e = vocab.at(static_cast<std::size_t>(id));
    return e.is_array() && !e.empty() && e[0].is_string() ? e[0].get<std::string>() : "?";
  };
  if (!vocab.is_array() || static_cast<int>(vocab.size()) < n + offset)
    throw DataError(file.string(), "model.vocab: not a list of " + std::to_string(n + offset) +
                                       " or more [piece, score] pairs (" + model.string() +
                                       " has " + std::to_string(n) + " pieces)");
  // The model's pieces one id up (its first three, <unk> <s> </s>, are fairseq's own); the
  // first 2,000 and the last 100 checked, which a different model or offset cannot pass.
  for (int id = 3; id < n; id = (id == 2000 && n > 2100) ? n - 100 : id + 1) {
    if (pieceAt(id + offset) != pieces.idToPiece(id))
      throw DataError(file.string(), "model.vocab[" + std::to_string(id + offset) + "] is \"" +
                                         pieceAt(id + offset) + "\", but piece " +
                                         std::to_string(id) + " of " + model.string() + " is \"" +
                                         pieces.idToPiece(id) + "\" (not fairseq's layout)");
  }
  PieceIds named;
  for (int id = 0; id < static_cast<int>(vocab.size()); ++id)
    if (id < 4 || id >= n + offset) named[pieceAt(id)] = id;
  auto added = tokenizerJsonAdded(doc, file);
  const auto special =
      resolveSpecialIds(specialEntries(config, TokenizerKind::ByteLevelBpe), named, added, file);
  if (special.bos != 0 || special.pad != 1 || special.eos != 2 || special.unk != 3)
    throw DataError(file.string(), "<s> <pad> </s> <unk> are not ids 0 1 2 3 (fairseq's layout)");
  return std::make_unique<FairseqSentencePieceTokenizer>(
      std::move(pieces), std::move(added), special, static_cast<int>(vocab.size()), file);
}

std::unique_ptr<Tokenizer> fromTokenizerJson(const fs::path& file, const FolderConfig& config) {
  const json doc = readJson(file);
  if (!doc.is_object() || !doc.contains("model") || !doc["model"].is_object()) {
    throw DataError(file.string(), "model: missing or not an object");
  }
  const std::string type = typeOf(doc, "model");
  if (type == "WordPiece") return wordPieceFromJson(doc, file, config);
  if (type == "BPE") return bpeFromJson(doc, file, config);
  if (type == "Unigram") return unigramFromJson(doc, file, config);
  throw DataError(file.string(),
                  "model.type \"" + type +
                      "\" is not supported (WordPiece, byte-level BPE and XLM-R's Unigram are)");
}

std::vector<std::string> readLines(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string(), "cannot be read");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  return lines;
}

/// vocab.txt: one piece a line, the line's index its id (trailing whitespace dropped, as
/// the `tokenizers` library reads it).
PieceIds readVocabTxt(const fs::path& file) {
  PieceIds vocab;
  const auto lines = readLines(file);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string piece = lines[i];
    while (!piece.empty() && std::isspace(static_cast<unsigned char>(piece.back())))
      piece.pop_back();
    vocab[piece] = static_cast<int>(i);
  }
  if (vocab.empty()) throw DataError(file.string(), "empty: no pieces");
  return vocab;
}

std::unique_ptr<Tokenizer> fromVocabTxt(const fs::path& file, const FolderConfig& config) {
  PieceIds vocab = readVocabTxt(file);
  const json& c = config.config;
  WordPieceOptions o;
  o.lowercase = flag(c, "do_lower_case", true, config.configFile, "");
  if (c.contains("strip_accents") && !c["strip_accents"].is_null()) {
    o.stripAccents = flag(c, "strip_accents", true, config.configFile, "");
  }
  o.handleChineseChars = flag(c, "tokenize_chinese_chars", true, config.configFile, "");
  const auto entries = specialEntries(config, TokenizerKind::WordPiece);
  auto added = configAdded(config);
  const auto special = resolveSpecialIds(entries, vocab, added, file);
  addConfigSpecials(entries, vocab, TokenizerKind::WordPiece, added);
  o.unkToken = entryContent(entries.back());
  try {
    return std::make_unique<WordPieceTokenizer>(std::move(vocab), std::move(o), std::move(added),
                                                special, file);
  } catch (const std::invalid_argument& e) {
    throw DataError(file.string(), e.what());
  }
}

/// merges.txt: an optional "#version" line, then one "left right" pair a line, by rank.
Merges readMergesTxt(const fs::path& file) {
  Merges merges;
  const auto lines = readLines(file);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("#version") || line.empty()) continue;
    const auto space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string::npos) {
      throw DataError(file.string() + ":" + std::to_string(i + 1),
                      "not a merge (two pieces separated by one space): \"" + line + "\"");
    }
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return merges;
}

std::unique_ptr<Tokenizer> fromVocabJson(const fs::path& folder, const FolderConfig& config) {
  const fs::path vocabFile = folder / "vocab.json";
  const fs::path mergesFile = folder / "merges.txt";
  json model = {{"vocab", readJson(vocabFile)}};
  PieceIds vocab = jsonVocab(model, vocabFile);
  const Merges merges = readMergesTxt(mergesFile);
  ByteLevelBpeOptions o;
  o.addPrefixSpace = flag(config.config, "add_prefix_space", false, config.configFile, "");
  const auto entries = specialEntries(config, TokenizerKind::ByteLevelBpe);
  auto added = configAdded(config);
  const auto special = resolveSpecialIds(entries, vocab, added, vocabFile);
  addConfigSpecials(entries, vocab, TokenizerKind::ByteLevelBpe, added);
  try {
    return std::make_unique<ByteLevelBpeTokenizer>(std::move(vocab), merges, std::move(o),
                                                   std::move(added), special, vocabFile);
  } catch (const std::invalid_argument& e) {
    throw DataError(mergesFile.string(), e.what());
  }
}

// A folder AttnLab exported (attnlab-cli export-model) holds its SentencePiece model beside the
// Unigram tokenizer.json made from it: the model itself is read, with AttnLab's special
// pieces. Another SentencePiece model (ALBERT's, XLM-R's) lacks them and falls through to the
// tokenizer.json, which says what is not supported.
std::unique_ptr<Tokenizer> attnlabSentencePiece(const fs::path& folder) {
  if (!fs::exists(folder / "tokenizer.model")) return nullptr;
  try {
    return std::make_unique<SentencePieceTokenizer>(
        SentencePieceTokenizer::load(folder / "tokenizer.model"));
  } catch (const TokenizerError&) {
    return nullptr;
  }
}

}  // namespace

std::unique_ptr<Tokenizer> loadHuggingFaceTokenizer(const fs::path& folder) {
  if (auto sentencePiece = attnlabSentencePiece(folder)) return sentencePiece;
  const FolderConfig config = readFolderConfig(folder);
  if (fs::exists(folder / "tokenizer.json")) {
    return fromTokenizerJson(folder / "tokenizer.json", config);
  }
  if (fs::exists(folder / "vocab.txt")) return fromVocabTxt(folder / "vocab.txt", config);
  if (fs::exists(folder / "vocab.json") || fs::exists(folder / "merges.txt")) {
    for (const char* name : {"vocab.json", "merges.txt"}) {
      if (!fs::exists(folder / name)) {
        throw DataError((folder / name).string(),
                        "missing: a byte-level BPE folder needs vocab.json and merges.txt");
      }
    }
    return fromVocabJson(folder, config);
  }
  throw DataError(folder.string(),
                  "no tokenizer files: tokenizer.json, vocab.txt, or vocab.json "
                  "and merges.txt");
}

}  // namespace attnlab::core
