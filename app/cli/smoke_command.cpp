#include "app/cli/smoke_command.h"

#include "core/data/wordnet_corpus.h"
#include "core/errors/error.h"
#include "core/runtime/compute_environment.h"
#include "core/tokenizer/sentencepiece_library.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"

#include <torch/torch.h>

#include <chrono>
#include <iomanip>
#include <ostream>

namespace attnlab::app {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A small attention computation; returns the sum of the softmax rows (should be rows).
double attentionCheck(const std::vector<int>& ids) {
  torch::NoGradGuard noGrad;
  torch::manual_seed(0);
  const auto n = static_cast<int64_t>(ids.size());
  auto tokens = torch::tensor(ids, torch::kLong);
  auto embedding = torch::randn({*std::max_element(ids.begin(), ids.end()) + 1, 32});
  auto x = embedding.index_select(0, tokens);
  auto probs = torch::softmax(torch::mm(x, x.t()) / std::sqrt(32.0), -1);
  return probs.sum().item<double>() / static_cast<double>(n);
}

}  // namespace

int runSmoke(const SmokeOptions& o, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  try {
    const int threads = core::configureIntraOpThreads(o.threads);
    out << "[1/5] " << core::describeTorchBuild() << "\n";
    out << "[2/5] float32 matmul 1024x1024: " << std::fixed << std::setprecision(1)
        << core::measureMatmulGflops(1024) << " GFLOP/s on " << threads << " thread(s)\n";

    fs::create_directories(o.workDir);
    const fs::path corpus = o.workDir / "wordnet_glosses.txt";
    auto t0 = std::chrono::steady_clock::now();
    const auto stats = core::writeWordNetGlosses(o.wordnetDir, corpus);
    out << "[3/5] WordNet corpus: " << stats.lines << " glosses, " << stats.words << " words -> "
        << corpus.string() << " (" << std::setprecision(1) << secondsSince(t0) << " s)\n";

    t0 = std::chrono::steady_clock::now();
    core::TokenizerTrainOptions train;
    train.inputs = {corpus};
    train.modelPrefix = o.workDir / "tokenizer";
    train.vocabSize = o.vocabSize;
    train.numThreads = threads;
    core::SentencePieceTokenizer::train(train);
    const auto tokenizer = core::SentencePieceTokenizer::load(o.workDir / "tokenizer.model");
    out << "[4/5] SentencePiece unigram, " << tokenizer.vocabSize() << " pieces -> "
        << tokenizer.modelPath().string() << " (" << secondsSince(t0) << " s, bridge "
        << core::SentencePieceLibrary::loadedPath().string() << ")\n";

    const std::string sentence = "a plant or animal that is atypically small";
    const auto ids = tokenizer.encode(sentence);
    const std::string back = tokenizer.decode(ids);
    out << "      \"" << sentence << "\" -> " << ids.size() << " pieces:";
    for (const int id : ids) out << ' ' << tokenizer.idToPiece(id);
    out << "\n";
    if (back != sentence) {
      err << "smoke: round trip changed the text: \"" << back << "\"\n";
      return 1;
    }
    const double rowSum = attentionCheck(ids);
    out << "[5/5] LibTorch after the tokenizer: attention rows sum to " << std::setprecision(6)
        << rowSum << "\n";
    if (std::abs(rowSum - 1.0) > 1e-4) {
      err << "smoke: attention rows do not sum to 1\n";
      return 1;
    }
    out << "smoke: OK\n";
    return 0;
  } catch (const attnlab::Error& e) {
    err << "smoke: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "smoke: unexpected failure: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace attnlab::app
