#pragma once

#include "core/config/run_config.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <cstdint>
#include <filesystem>
#include <memory>

namespace attnlab::core {

/// Where a run's tokenizer came from (what the run's data line reports).
enum class TokenizerOrigin {
  Trained,     ///< trained now on the corpus (or its sample)
  Reused,      ///< trained by an earlier start of this run, found intact and matching
  Loaded,      ///< tokenizer.model named a file, loaded (and copied into the run)
  Pretrained,  ///< a pretrained model's tokenizer (model.init_from)
};

/// "trained", "reused", "loaded", "the pretrained model's".
const char* tokenizerOriginName(TokenizerOrigin origin);

/// The tokenizer a run uses, and where it came from.
struct ProvidedTokenizer {
  std::shared_ptr<const Tokenizer> tokenizer;
  /// <folder>/tokenizer.model, or a pretrained model's tokenizer file in <folder>/tokenizer/
  std::filesystem::path modelPath;
  /// FNV-1a 64 of the .model bytes (of the tokenizer files for a pretrained model's)
  std::uint64_t fingerprint = 0;
  bool trained = false;  ///< true when this call trained the model
  TokenizerOrigin origin = TokenizerOrigin::Trained;
  /// Lines the model was trained on: all of the corpus's, or a seeded sample of them
  /// (tokenizer.input_sentence_size, or tokenizerSampleLines for a large corpus); 0 when
  /// it was not trained now.
  std::int64_t trainingLines = 0;
};

/// Above this much corpus text a tokenizer is trained on a seeded sample of about this much
/// (when tokenizer.input_sentence_size is 0): floor(kTokenizerSampleBytes / the corpus's
/// mean line length) lines. SentencePiece keeps its sample in memory and builds a suffix
/// array over it, about 20 to 25 bytes per byte of text for the unigram model (attnlab-cli
/// train, whole process: a 91 MB sample peaked at 2.4 GB, 40 MiB at 1.18 GB; VmHWM at the
/// end of the tokenizer phase with a 24 MiB sample of a 4 GB JSON-lines corpus: 0.82 GB), so
/// this bounds training memory under 1 GB whatever the corpus size (docs/data.md).
inline constexpr std::uint64_t kTokenizerSampleBytes = std::uint64_t{24} << 20;

/// The lines SentencePiece should sample from a corpus of `lines` lines and `bytes` bytes
/// under `inputSentenceSize` (tokenizer.input_sentence_size): that when positive, else all
/// lines (0) up to kTokenizerSampleBytes of text, else the mean-length share of it.
std::int64_t tokenizerSampleLines(std::int64_t inputSentenceSize, std::int64_t lines,
                                  std::uint64_t bytes);

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
                                   const std::filesystem::path& folder, std::uint64_t seed,
                                   std::int64_t corpusLines = 0, std::uint64_t corpusBytes = 0);

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
