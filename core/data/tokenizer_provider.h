#pragma once

#include "core/config/run_config.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <memory>

namespace attnlab::core {

/// The tokenizer a run uses, and where it came from.
struct ProvidedTokenizer {
  std::shared_ptr<const Tokenizer> tokenizer;
  /// <folder>/tokenizer.model, or a pretrained model's tokenizer file in <folder>/tokenizer/
  std::filesystem::path modelPath;
  /// FNV-1a 64 of the .model bytes (of the tokenizer files for a pretrained model's)
  std::uint64_t fingerprint = 0;
  bool trained = false;  ///< true when this call trained (or copied) the model
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

/// The tokenizer of the Hugging Face folder `modelFolder` (model.init_from): its files
/// copied to <folder>/tokenizer/ (so the run keeps the tokenizer it used) and loaded from
/// there. Throws DataError naming the file and the field (core/pretrained/hf_tokenizer.h).
ProvidedTokenizer providePretrainedTokenizer(const std::filesystem::path& modelFolder,
                                             const std::filesystem::path& folder);

/// The tokenizer a trained run uses: <runDir>/tokenizer/ when the run started from a
/// pretrained model (model.init_from), else the SentencePiece model `sentencePieceModel`.
std::unique_ptr<Tokenizer> loadRunTokenizer(const RunConfig& config,
                                            const std::filesystem::path& runDir,
                                            const std::filesystem::path& sentencePieceModel);

}  // namespace attnlab::core
