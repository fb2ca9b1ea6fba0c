#pragma once

#include "core/config/config_choices.h"
#include "core/tokenizer/tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct attnlab_spb_processor;

namespace attnlab::core {

// TokenizerAlgorithm (unigram | bpe) is a config choice: core/config/config_choices.h.

/// SentencePiece splits its sentences into one part per thread and sums their statistics in
/// that order, so the pieces it learns depend on the number of threads: with one thread per
/// core, the tiny demo's 8,000 pieces differed between 2 and 16 threads on this machine. A
/// fixed count makes them independent of the core count. It does not make them the same on
/// every machine: on Ubuntu 24.04 (glibc 2.39, another CPU) with this count and the same
/// library, about 430 of the 8,000 pieces still differed from Debian 12's.
inline constexpr int kTokenizerTrainingThreads = 16;

struct TokenizerTrainOptions {
  /// Plain UTF-8 text files, one sentence or document per line.
  std::vector<std::filesystem::path> inputs;
  /// Writes <prefix>.model and <prefix>.vocab.
  std::filesystem::path modelPrefix;
  int vocabSize = 8000;
  TokenizerAlgorithm algorithm = TokenizerAlgorithm::Unigram;
  double characterCoverage = 0.9995;
  /// Sentences sampled for training; 0 uses every line.
  std::uint64_t inputSentenceSize = 0;
  std::uint64_t seed = 0;
  int numThreads = 0;  ///< 0 = kTokenizerTrainingThreads
};

/// A SentencePiece model with AttnLab's special pieces, used through the isolated
/// bridge. The model files are standard SentencePiece files usable by other clients.
class SentencePieceTokenizer final : public Tokenizer {
 public:
  /// The fixed special pieces: "<pad>", "<s>", "</s>", "<mask>", "<unk>".
  static const std::vector<std::string>& specialPieces();

  /// Trains and writes <prefix>.model / <prefix>.vocab. Throws TokenizerError with a
  /// translated message (e.g. a vocabulary the corpus cannot support).
  static void train(const TokenizerTrainOptions& options);
  /// Loads a .model file; throws TokenizerError naming the path when it fails.
  static SentencePieceTokenizer load(const std::filesystem::path& modelPath);
  /// Loads another project's .model (XLM-R's sentencepiece.bpe.model) without AttnLab's
  /// special pieces: its own ids, <unk> <s> </s> where it has them (specialIds().mask is
  /// its <unk>). For FairseqSentencePieceTokenizer, which lays the ids out as fairseq does.
  static SentencePieceTokenizer loadForeign(const std::filesystem::path& modelPath);

  std::vector<int> encode(std::string_view text) const override;
  std::string decode(std::span<const int> ids) const override;
  int pieceToId(std::string_view piece) const override;
  std::string idToPiece(int id) const override;
  int vocabSize() const override;
  const SpecialTokenIds& specialIds() const override { return m_special; }
  TokenizerKind kind() const override { return TokenizerKind::SentencePiece; }
  const std::filesystem::path& modelPath() const override { return m_path; }

 private:
  struct Release {
    void operator()(attnlab_spb_processor* p) const noexcept;
  };
  SentencePieceTokenizer(std::shared_ptr<attnlab_spb_processor> processor,
                         std::filesystem::path path, bool attnlabSpecials = true);

  std::shared_ptr<attnlab_spb_processor> m_processor;
  std::filesystem::path m_path;
  SpecialTokenIds m_special;
};

}  // namespace attnlab::core
