#pragma once

// What the app tests that train share: the regular corpus (tiny_corpus.h), a 50-piece
// tokenizer trained on it, and the tiny configuration over both (tiny_run_config.h).

#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/tiny_run_config.h"

#include <filesystem>

namespace attnlab::tests {

/// Writes <dir>/corpus.txt and <dir>/tok.model and returns tinyRunConfig over them.
inline core::RunConfig prepareTinyRun(const std::filesystem::path& dir) {
  writeRegularCorpus(dir / "corpus.txt", 400);
  core::TokenizerTrainOptions t;
  t.inputs = {dir / "corpus.txt"};
  t.modelPrefix = dir / "tok";
  t.vocabSize = 50;
  core::SentencePieceTokenizer::train(t);
  return tinyRunConfig(dir / "corpus.txt", dir / "tok.model");
}

}  // namespace attnlab::tests
