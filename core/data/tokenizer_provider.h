#pragma once

#include "core/config/run_config.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <cstdint>
#include <filesystem>

namespace attnlab::core {

/// The tokenizer a run uses, and where it came from.
struct ProvidedTokenizer {
  SentencePieceTokenizer tokenizer;
  std::filesystem::path modelPath;  ///< <folder>/tokenizer.model
  std::uint64_t fingerprint = 0;    ///< FNV-1a 64 of the .model bytes
  bool trained = false;             ///< true when this call trained (or copied) the model
};

/// Provides <folder>/tokenizer.model and loads it.
///
/// - tokenizer.model set: that file is loaded and copied to <folder>/tokenizer.model (when
///   the copy there differs), so a run folder always holds the tokenizer it used.
/// - otherwise a model is trained on `corpusText` with the configured algorithm, vocabulary
///   size, character coverage, input_sentence_size and `seed`. The sidecar
///   <folder>/tokenizer.settings records the corpus fingerprint, those settings and the
///   model's fingerprint; when all match, the model in the folder is reused, else retrained.
///
/// Throws ConfigError for a bad tokenizer.algorithm / vocab_size, TokenizerError when
/// SentencePiece fails (messages say which setting to change), DataError for file trouble.
ProvidedTokenizer provideTokenizer(const TokenizerConfig& config,
                                   const std::filesystem::path& corpusText,
                                   std::uint64_t corpusFingerprint,
                                   const std::filesystem::path& folder, std::uint64_t seed);

}  // namespace attnlab::core
