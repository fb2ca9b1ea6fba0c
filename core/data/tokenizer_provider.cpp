#include "core/data/tokenizer_provider.h"

#include "core/data/data_files.h"
#include "core/data/hashing.h"
#include "core/data/line_sample.h"
#include "core/errors/error.h"
#include "core/pretrained/hf_tokenizer.h"
#include "core/pretrained/pretrained_folder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <system_error>

namespace attnlab::core {

namespace fs = std::filesystem;

namespace {

std::string formatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Everything a trained model depends on, as the sidecar's text (without the model's
/// own fingerprint line, which is appended after training).
std::string trainingSettings(const TokenizerConfig& c, std::uint64_t corpusFingerprint,
                             std::uint64_t seed) {
  std::ostringstream s;
  s << "format=1\n"
    << "corpus_fingerprint=" << toHex64(corpusFingerprint) << "\n"
    << "algorithm=" << choiceName(c.algorithm) << "\n"
    << "vocab_size=" << c.vocabSize << "\n"
    << "character_coverage=" << formatDouble(c.characterCoverage) << "\n"
    << "input_sentence_size=" << c.inputSentenceSize << "\n"
    << "seed=" << seed << "\n";
  return s.str();
}

std::string modelLine(std::uint64_t modelFingerprint) {
  return "model_fingerprint=" + toHex64(modelFingerprint) + "\n";
}

std::shared_ptr<const Tokenizer> loadedModel(const fs::path& modelPath) {
  return std::make_shared<const SentencePieceTokenizer>(SentencePieceTokenizer::load(modelPath));
}

/// tokenizer.model names a file: loaded first (a file that is not a SentencePiece model fails
/// here, before any copy), then copied to <folder>/tokenizer.model when the copy differs.
ProvidedTokenizer provideGivenModel(const TokenizerConfig& config, const fs::path& modelPath,
                                    const fs::path& sidecar) {
  std::error_code ec;
  const fs::path given(config.model);
  if (!fs::is_regular_file(given, ec)) {
    throw DataError(config.model, "tokenizer.model: file not found");
  }
  SentencePieceTokenizer::load(given);
  const std::string bytes = readFileBytes(given);
  const std::uint64_t fp = fnv1a64(bytes);
  if (!fs::equivalent(given, modelPath, ec)) {
    const bool same = fs::is_regular_file(modelPath, ec) && fingerprintFile(modelPath) == fp;
    if (!same) writeFileAtomically(modelPath, bytes);
    writeFileAtomically(sidecar,
                        "format=1\nsource=" + fs::absolute(given).string() + "\n" + modelLine(fp));
  }
  return ProvidedTokenizer{loadedModel(modelPath), modelPath, fp, false, TokenizerOrigin::Loaded};
}

/// Trains <folder>/tokenizer.model on the corpus, or on a sample of a large one, and records
/// `settings` with the model's fingerprint in the sidecar.
ProvidedTokenizer trainTokenizer(const TokenizerConfig& config, const fs::path& corpusText,
                                 std::uint64_t corpusFingerprint, const fs::path& folder,
                                 std::uint64_t seed, std::int64_t corpusLines,
                                 std::uint64_t corpusBytes, const std::string& settings) {
  std::error_code ec;
  const fs::path modelPath = folder / "tokenizer.model";
  const fs::path prefix = folder / ("tokenizer.training-" + toHex64(corpusFingerprint));
  TokenizerTrainOptions options;
  options.inputs = {corpusText};
  // A large corpus with the default input_sentence_size: our own seeded reservoir writes the
  // sample and SentencePiece reads only that. (SentencePiece's own sampler, which a positive
  // input_sentence_size keeps using, reads and counts the whole corpus.)
  const fs::path samplePath = folder / ("tokenizer.sample-" + toHex64(corpusFingerprint) + ".txt");
  const std::int64_t sample =
      tokenizerSampleLines(config.inputSentenceSize, corpusLines, corpusBytes);
  if (config.inputSentenceSize == 0 && sample > 0) {
    writeLineSample(corpusText, sample, seed, samplePath);
    options.inputs = {samplePath};
  }
  options.modelPrefix = prefix;
  options.vocabSize = config.vocabSize;
  options.algorithm = config.algorithm;
  options.characterCoverage = config.characterCoverage;
  options.inputSentenceSize = static_cast<std::uint64_t>(config.inputSentenceSize);
  options.seed = seed;
  try {
    SentencePieceTokenizer::train(options);
  } catch (...) {
    fs::remove(samplePath, ec);
    throw;
  }
  fs::remove(samplePath, ec);
  replaceFile(prefix.string() + ".model", modelPath);
  replaceFile(prefix.string() + ".vocab", folder / "tokenizer.vocab");
  const std::uint64_t fp = fingerprintFile(modelPath);
  writeFileAtomically(folder / "tokenizer.settings", settings + modelLine(fp));
  const std::int64_t trainedOn =
      sample > 0 && corpusLines > 0 ? std::min(sample, corpusLines) : corpusLines;
  return ProvidedTokenizer{loadedModel(modelPath),   modelPath, fp, true,
                           TokenizerOrigin::Trained, trainedOn};
}

}  // namespace

std::int64_t tokenizerSampleLines(std::int64_t inputSentenceSize, std::int64_t lines,
                                  std::uint64_t bytes) {
  if (inputSentenceSize > 0) return inputSentenceSize;
  if (lines <= 0 || bytes <= kTokenizerSampleBytes) return 0;
  const double meanLine = static_cast<double>(bytes) / static_cast<double>(lines);
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(static_cast<double>(kTokenizerSampleBytes) / meanLine));
}

const char* tokenizerOriginName(TokenizerOrigin origin) {
  switch (origin) {
    case TokenizerOrigin::Trained:
      return "trained";
    case TokenizerOrigin::Reused:
      return "reused";
    case TokenizerOrigin::Loaded:
      return "loaded";
    case TokenizerOrigin::Pretrained:
      return "the pretrained model's";
  }
  return "?";
}

ProvidedTokenizer providePretrainedTokenizer(const fs::path& modelFolder, const fs::path& folder) {
  const fs::path copy = folder / "tokenizer";
  std::error_code ec;
  if (!fs::equivalent(modelFolder, copy, ec)) copyPretrainedTokenizer(modelFolder, copy);
  std::shared_ptr<const Tokenizer> tokenizer = loadHuggingFaceTokenizer(copy);
  const fs::path file = tokenizer->modelPath();
  return ProvidedTokenizer{std::move(tokenizer), file, pretrainedTokenizerFingerprint(copy), false,
                           TokenizerOrigin::Pretrained};
}

std::unique_ptr<Tokenizer> loadRunTokenizer(const RunConfig& config, const fs::path& runDir,
                                            const fs::path& sentencePieceModel) {
  if (!config.model.initFrom.empty()) return loadHuggingFaceTokenizer(runDir / "tokenizer");
  return std::make_unique<SentencePieceTokenizer>(SentencePieceTokenizer::load(sentencePieceModel));
}

ProvidedTokenizer provideTokenizer(const TokenizerConfig& config, const fs::path& corpusText,
                                   std::uint64_t corpusFingerprint, const fs::path& folder,
                                   std::uint64_t seed, std::int64_t corpusLines,
                                   std::uint64_t corpusBytes) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw DataError(folder.string(), "cannot create the folder: " + ec.message());
  const fs::path modelPath = folder / "tokenizer.model";
  const fs::path sidecar = folder / "tokenizer.settings";

  if (!config.model.empty()) return provideGivenModel(config, modelPath, sidecar);

  if (config.vocabSize < 8) {
    throw ConfigError(
        "tokenizer.vocab_size",
        "must be at least 8 (5 special pieces plus text), got " + std::to_string(config.vocabSize));
  }
  if (config.inputSentenceSize < 0) {
    throw ConfigError("tokenizer.input_sentence_size", "must be 0 (all lines) or positive");
  }
  const std::string settings = trainingSettings(config, corpusFingerprint, seed);

  // Reuse: the sidecar must describe exactly this corpus and these settings, and the
  // model in the folder must be the one trained then (not replaced by hand).
  if (fs::is_regular_file(modelPath, ec) && fs::is_regular_file(sidecar, ec)) {
    const std::string recorded = readFileBytes(sidecar);
    const std::uint64_t fp = fingerprintFile(modelPath);
    if (recorded == settings + modelLine(fp)) {
      try {
        return ProvidedTokenizer{loadedModel(modelPath), modelPath, fp, false,
                                 TokenizerOrigin::Reused};
      } catch (const TokenizerError&) {
        // An unreadable model is retrained below.
      }
    }
  }

  fs::remove(sidecar, ec);  // a crash during training must not leave a matching sidecar
  return trainTokenizer(config, corpusText, corpusFingerprint, folder, seed, corpusLines,
                        corpusBytes, settings);
}

}  // namespace attnlab::core
