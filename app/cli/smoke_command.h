#pragma once

#include <filesystem>
#include <iosfwd>

namespace attnlab::app {

struct SmokeOptions {
  std::filesystem::path workDir = "attnlab-smoke";
  std::filesystem::path wordnetDir = "/usr/share/wordnet";
  int vocabSize = 8000;
  int threads = 0;
};

/// The end-to-end check of the installed stack: LibTorch computes, the matmul rate is
/// measured (a slow BLAS shows), a SentencePiece model is trained on WordNet's glosses
/// through the isolated bridge, a sentence round-trips, and LibTorch computes again in
/// the same process. Returns the process exit status.
int runSmoke(const SmokeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace attnlab::app
