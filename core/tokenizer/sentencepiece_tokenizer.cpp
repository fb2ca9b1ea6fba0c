#include "core/tokenizer/sentencepiece_tokenizer.h"

#include "core/errors/error.h"
#include "core/tokenizer/sentencepiece_library.h"
#include "core/tokenizer/sp_bridge/sp_bridge_api.h"

#include <array>
#include <regex>
#include <utility>

namespace attnlab::core {
namespace {

constexpr size_t kErrCap = 2048;

/// Turns SentencePiece's own status text into a message a user can act on.
std::string translateTrainError(const std::string& raw, const TokenizerTrainOptions& o) {
  static const std::regex tooHigh(
      R"(Vocabulary size (?:is )?too high \((\d+)\)\. Please set it to a value <= (\d+))");
  std::smatch m;
  if (std::regex_search(raw, m, tooHigh)) {
    return "vocabulary size " + m[1].str() + " is more than this corpus can support (at most " +
           m[2].str() + " pieces); lower tokenizer.vocab_size or add text to the corpus";
  }
  static const std::regex tooSmall(
      R"(Vocabulary size is smaller than required_chars\. (\d+) vs (\d+))");
  if (std::regex_search(raw, m, tooSmall)) {
    return "vocabulary size " + m[1].str() + " is smaller than the " + m[2].str() +
           " distinct characters the corpus needs; raise tokenizer.vocab_size";
  }
  if (raw.find("not found") != std::string::npos || raw.find("No such file") != std::string::npos) {
    return "cannot read the training text: " + raw;
  }
  return "SentencePiece training failed: " + raw;
}

}  // namespace

const std::vector<std::string>& SentencePieceTokenizer::specialPieces() {
  static const std::vector<std::string> pieces = {"<pad>", "<s>", "</s>", "<mask>", "<unk>"};
  return pieces;
}

void SentencePieceTokenizer::Release::operator()(attnlab_spb_processor* p) const noexcept {
  if (p != nullptr) SentencePieceLibrary::api().release(p);
}

SentencePieceTokenizer::SentencePieceTokenizer(std::shared_ptr<attnlab_spb_processor> processor,
                                               std::filesystem::path path, bool attnlabSpecials)
    : m_processor(std::move(processor)), m_path(std::move(path)) {
  const auto& pieces = specialPieces();
  m_special.pad = pieceToId(pieces[0]);
  m_special.bos = pieceToId(pieces[1]);
  m_special.eos = pieceToId(pieces[2]);
  m_special.mask = pieceToId(pieces[3]);
  m_special.unk = pieceToId(pieces[4]);
  if (attnlabSpecials && m_special.mask == m_special.unk) {
    throw TokenizerError(m_path.string(),
                         "the model has no <mask> piece; it was not trained by AttnLab (train a "
                         "new tokenizer, or add <mask> as a user-defined symbol)");
  }
}

void SentencePieceTokenizer::train(const TokenizerTrainOptions& o) {
  if (o.inputs.empty()) throw TokenizerError("tokenizer", "no input text files given");
  if (o.vocabSize < 8) {
    throw TokenizerError(
        "tokenizer.vocab_size",
        "must be at least 8 (5 special pieces plus text), got " + std::to_string(o.vocabSize));
  }
  std::string inputs;
  for (const auto& p : o.inputs) {
    const std::string s = p.string();
    if (s.find(',') != std::string::npos) {
      throw TokenizerError(s, "SentencePiece input paths cannot contain a comma");
    }
    inputs += (inputs.empty() ? "" : ",") + s;
  }
  const int threads = o.numThreads > 0 ? o.numThreads : kTokenizerTrainingThreads;
  const std::vector<std::pair<std::string, std::string>> kwargs = {
      {"input", inputs},
      {"model_prefix", o.modelPrefix.string()},
      {"vocab_size", std::to_string(o.vocabSize)},
      {"model_type", o.algorithm == TokenizerAlgorithm::Bpe ? "bpe" : "unigram"},
      {"character_coverage", std::to_string(o.characterCoverage)},
      {"input_sentence_size", std::to_string(o.inputSentenceSize)},
      {"shuffle_input_sentence", "true"},
      {"attnlab_random_seed", std::to_string(o.seed == 0 ? 1 : o.seed)},
      {"num_threads", std::to_string(threads)},
      {"pad_id", "0"},
      {"bos_id", "1"},
      {"eos_id", "2"},
      {"unk_id", "4"},
      {"pad_piece", "<pad>"},
      {"bos_piece", "<s>"},
      {"eos_piece", "</s>"},
      {"unk_piece", "<unk>"},
      // id 3 is the first free id, so <mask> lands there; user-defined (not control)
      // so that "<mask>" typed in an inspect text becomes the mask id.
      {"user_defined_symbols", "<mask>"},
      {"hard_vocab_limit", "true"},
      {"attnlab_min_log_level", "1"},  // warnings and errors only
  };
  std::vector<const char*> keys;
  std::vector<const char*> values;
  for (const auto& [k, v] : kwargs) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  std::array<char, kErrCap> err{};
  const auto& api = SentencePieceLibrary::api();
  if (api.train(keys.data(), values.data(), keys.size(), err.data(), err.size()) != 0) {
    throw TokenizerError("tokenizer", translateTrainError(err.data(), o));
  }
}

namespace {

attnlab_spb_processor* loadProcessor(const std::filesystem::path& modelPath) {
  const auto& api = SentencePieceLibrary::api();
  std::array<char, kErrCap> err{};
  attnlab_spb_processor* raw = api.load(modelPath.c_str(), err.data(), err.size());
  if (raw == nullptr) {
    throw TokenizerError(modelPath.string(),
                         std::string("cannot load the SentencePiece model: ") + err.data());
  }
  return raw;
}

}  // namespace

SentencePieceTokenizer SentencePieceTokenizer::load(const std::filesystem::path& modelPath) {
  return SentencePieceTokenizer(
      std::shared_ptr<attnlab_spb_processor>(loadProcessor(modelPath), Release{}), modelPath);
}

SentencePieceTokenizer SentencePieceTokenizer::loadForeign(const std::filesystem::path& modelPath) {
  return SentencePieceTokenizer(
      std::shared_ptr<attnlab_spb_processor>(loadProcessor(modelPath), Release{}), modelPath,
      false);
}

std::vector<int> SentencePieceTokenizer::encode(std::string_view text) const {
  const auto& api = SentencePieceLibrary::api();
  std::array<char, kErrCap> err{};
  std::vector<int> ids(text.size() + 8);
  long n = api.encode(m_processor.get(), text.data(), text.size(), ids.data(), ids.size(),
                      err.data(), err.size());
  if (n < 0) throw TokenizerError(m_path.string(), std::string("encode failed: ") + err.data());
  if (static_cast<size_t>(n) > ids.size()) {
    ids.resize(static_cast<size_t>(n));
    n = api.encode(m_processor.get(), text.data(), text.size(), ids.data(), ids.size(), err.data(),
                   err.size());
  }
  ids.resize(static_cast<size_t>(n));
  return ids;
}

std::string SentencePieceTokenizer::decode(std::span<const int> ids) const {
  const auto& api = SentencePieceLibrary::api();
  std::array<char, kErrCap> err{};
  std::string out(ids.size() * 8 + 16, '\0');
  long n = api.decode(m_processor.get(), ids.data(), ids.size(), out.data(), out.size(), err.data(),
                      err.size());
  if (n < 0) throw TokenizerError(m_path.string(), std::string("decode failed: ") + err.data());
  if (static_cast<size_t>(n) > out.size()) {
    out.resize(static_cast<size_t>(n));
    n = api.decode(m_processor.get(), ids.data(), ids.size(), out.data(), out.size(), err.data(),
                   err.size());
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

int SentencePieceTokenizer::pieceToId(std::string_view piece) const {
  return SentencePieceLibrary::api().piece_to_id(m_processor.get(), piece.data(), piece.size());
}

std::string SentencePieceTokenizer::idToPiece(int id) const {
  const auto& api = SentencePieceLibrary::api();
  std::string out(64, '\0');
  long n = api.id_to_piece(m_processor.get(), id, out.data(), out.size());
  if (n < 0) {
    throw TokenizerError(m_path.string(), "piece id " + std::to_string(id) +
                                              " is out of range [0, " +
                                              std::to_string(vocabSize()) + ")");
  }
  if (static_cast<size_t>(n) > out.size()) {
    out.resize(static_cast<size_t>(n));
    n = api.id_to_piece(m_processor.get(), id, out.data(), out.size());
  }
  out.resize(static_cast<size_t>(n));
  return out;
}

int SentencePieceTokenizer::vocabSize() const {
  return SentencePieceLibrary::api().vocab_size(m_processor.get());
}

}  // namespace attnlab::core
