// Issue 29: opening a BERT-base-sized Hugging Face folder (random weights, 440 MB of float32
// safetensors, a 30,522-piece WordPiece vocabulary built from WordNet's glosses) and its
// first inspection; WordPiece over every WordNet gloss. Side by side, when a Python with
// `transformers` is given (--python), the same folder through AutoTokenizer +
// AutoModelForMaskedLM (output_attentions) and the same glosses through `tokenizers`' encode
// (one thread, and its default thread pool).
//   bench_open_model [--dir FOLDER] [--python PY] [--repeats N]
// Last line: open_model_s=<n> wordpiece_mb_s=<n>.
#include "core/data/corpus_source.h"
#include "core/inspect/attention_inspector.h"
#include "core/model/masked_lm.h"
#include "core/pretrained/hf_bert_export.h"
#include "core/pretrained/hf_tokenizer.h"
#include "tests/bench/bert_base_shape.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;
using namespace attnlab;

namespace {

constexpr int kVocabulary = 30522;
const char* kText =
    "The quick brown fox jumps over the lazy dog because it wanted to see what lay beyond the "
    "river, where the old mill stood silent in the evening light.";

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> linesOf(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A WordPiece vocabulary as BERT's is made of: the specials, every character seen (alone and
// as a continuation "##c"), then the glosses' most frequent lower-cased words.
std::vector<std::string> glossVocabulary(const std::vector<std::string>& lines) {
  std::vector<std::string> vocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
  std::set<std::string> characters;
  std::unordered_map<std::string, int> counts;
  for (const auto& line : lines) {
    std::string word;
    for (const char raw : line + " ") {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(raw)));
      const bool letter = std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80);
      if (letter) word += c;
      if (!letter && !word.empty()) ++counts[word], word.clear();
      if (!letter && c != ' ') characters.insert(std::string(1, c));
      if (letter && !(c & 0x80)) characters.insert(std::string(1, c));
    }
  }
  for (const auto& c : characters) vocab.push_back(c), vocab.push_back("##" + c);
  std::vector<std::pair<int, std::string>> byCount;
  for (const auto& [w, n] : counts) byCount.emplace_back(-n, w);
  std::sort(byCount.begin(), byCount.end());
  for (const auto& [n, w] : byCount) {
    if (static_cast<int>(vocab.size()) >= kVocabulary) break;
    if (!characters.count(w)) vocab.push_back(w);
  }
  while (static_cast<int>(vocab.size()) < kVocabulary)
    vocab.push_back("[unused" + std::to_string(vocab.size()) + "]");
  return vocab;
}

void writeTokenizer(const fs::path& folder, const std::vector<std::string>& vocab) {
  std::ofstream v(folder / "vocab.txt");
  for (const auto& piece : vocab) v << piece << "\n";
  std::ofstream(folder / "tokenizer_config.json")
      << R"({"do_lower_case": true, "tokenizer_class": "BertTokenizer", "model_max_length": 512})";
}

// BERT-base with random weights, as AttnLab's export writes a BertForMaskedLM.
void writeModel(const fs::path& folder) {
  torch::manual_seed(0);
  core::ModelConfig shape = bench::bertBaseShape();
  core::MaskedLanguageModel model(shape, kVocabulary, 0);
  std::map<std::string, at::Tensor> parameters;
  for (const auto& p : model->named_parameters()) parameters[p.key()] = p.value().detach();
  std::vector<std::string> leftOut;
  core::writeHfBertModel(folder, core::hfBertTensorsOf(parameters, shape, leftOut), shape,
                         kVocabulary, 0);
}

std::string argument(int argc, char** argv, const std::string& name, std::string fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path dir = argument(argc, argv, "--dir", "/tmp/attnlab-bench-bert-base");
  const std::string python = argument(argc, argv, "--python", "");
  const int repeats = std::stoi(argument(argc, argv, "--repeats", "3"));
  core::CorpusConfig wordnet;
  const auto corpus = core::buildCorpus(wordnet, dir / "corpus");
  const auto glosses = linesOf(corpus.textPath);
  if (!fs::exists(dir / "model.safetensors")) {
    std::printf("making %s (BERT-base, random weights)\n", dir.c_str());
    writeTokenizer(dir, glossVocabulary(glosses));
    writeModel(dir);
  }
  std::printf("model.safetensors: %.0f MB\n", fs::file_size(dir / "model.safetensors") / 1e6);

  double open = 1e9;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    core::AttentionInspector inspector(dir);
    const auto inspection = inspector.inspect(kText);
    const double s = secondsSince(start);
    open = std::min(open, s);
    std::printf("open + first inspection: %.3f s (%lld tokens, %lld layers)\n", s,
                static_cast<long long>(inspection.realTokens),
                static_cast<long long>(inspection.probabilities.size(0)));
  }

  const auto tokenizer = core::loadHuggingFaceTokenizer(dir);
  double bytes = 0, best = 1e9;
  std::size_t pieces = 0;
  for (const auto& line : glosses) bytes += static_cast<double>(line.size()) + 1;
  for (int r = 0; r < repeats; ++r) {
    pieces = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const auto& line : glosses) pieces += tokenizer->encode(line).size();
    best = std::min(best, secondsSince(start));
  }
  const double mbps = bytes / 1e6 / best;
  std::printf("WordPiece: %zu glosses, %.1f MB, %zu pieces in %.3f s: %.1f MB/s (one thread)\n",
              glosses.size(), bytes / 1e6, pieces, best, mbps);

  if (!python.empty()) {
    const std::string command = python + " " + ATTNLAB_SOURCE_DIR +
                                "/tests/bench/open_model_reference.py " + dir.string() + " " +
                                corpus.textPath.string() + " " + std::to_string(repeats);
    std::fflush(stdout);
    if (std::system(command.c_str()) != 0) std::printf("reference: failed (%s)\n", command.c_str());
  }
  std::printf("open_model_s=%.3f wordpiece_mb_s=%.1f\n", open, mbps);
  return 0;
}
