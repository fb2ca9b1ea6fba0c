#include "analysis/runs/coref_probe_run.h"

#include "analysis/coref/conll_reader.h"
#include "analysis/coref/lin_reflexive_reader.h"
#include "analysis/coref/reflexive_generator.h"
#include "analysis/runs/analysis_control.h"
#include "analysis/runs/run_selection.h"
#include "core/errors/error.h"
#include "core/inspect/attention_inspector.h"
#include "core/tokenizer/tokenizer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

namespace attnlab::analysis {

namespace {

constexpr std::string_view kConllPrefix = "conll:";
constexpr std::string_view kLinPrefix = "lin:";

/// One example as the model sees it.
struct EncodedExample {
  std::size_t index = 0;  ///< into the dataset
  std::vector<std::int64_t> ids;
  coref::WordLayout layout;
};

/// Pieces of one word as the probe encodes it (word by word), cached: CoNLL text repeats.
class WordPieces {
 public:
  explicit WordPieces(const core::Tokenizer& tokenizer) : m_tokenizer(tokenizer) {}
  const std::vector<int>& operator()(const std::string& word) {
    auto it = m_cache.find(word);
    // Byte-level BPE marks a word's leading space in its first piece ("Ġcat"), which a word
    // inside a sentence has; SentencePiece and WordPiece mark word starts by themselves.
    if (it == m_cache.end())
      it = m_cache
               .emplace(word,
                        m_tokenizer.encode(m_tokenizer.kind() == core::TokenizerKind::ByteLevelBpe
                                               ? " " + word
                                               : word))
               .first;
    return it->second;
  }

 private:
  const core::Tokenizer& m_tokenizer;
  std::unordered_map<std::string, std::vector<int>> m_cache;
};

coref::CorefDataset loadDataset(const CorefProbeOptions& options, int maxPieces, WordPieces& pieces,
                                std::string& description) {
  if (options.dataset == "synthetic") {
    coref::ReflexiveOptions r;
    r.seed = options.seed;
    r.size = options.syntheticSize;
    r.distractor = options.distractor;
    auto data = coref::generateReflexives(r);
    description = "synthetic reflexives (Lin et al.'s grammar), " +
                  std::to_string(data.examples.size()) + " sentences, seed " +
                  std::to_string(options.seed) +
                  (options.distractor ? ", with a distractor phrase before each" : "");
    return data;
  }
  if (options.dataset.rfind(kConllPrefix, 0) == 0) {
    const std::string path = options.dataset.substr(kConllPrefix.size());
    if (path.empty())
      throw DataError("--dataset", "conll: needs a path, e.g. conll:dev.v4_gold_conll");
    coref::ConllOptions c;
    // Windows are packed by pieces, so whole sentences fit the model.
    c.maxWords = maxPieces;
    c.wordLength = [&pieces](const std::string& word) {
      return std::max<int>(1, static_cast<int>(pieces(word).size()));
    };
    auto data = coref::readConll2012(path, c);
    description = "CoNLL-2012 file " + path + ", " + std::to_string(data.examples.size()) +
                  " windows of whole sentences of at most " + std::to_string(maxPieces) + " pieces";
    return data;
  }
  if (options.dataset.rfind(kLinPrefix, 0) == 0) {
    const std::string path = options.dataset.substr(kLinPrefix.size());
    if (path.empty()) throw DataError("--dataset", "lin: needs a path, e.g. lin:data_refl/refl.1");
    auto data = coref::readLinReflexives(path);
    std::size_t withDistractors = 0;
    for (const auto& e : data.examples) withDistractors += e.mentions.size() > 2 ? 1 : 0;
    description = "Lin et al.'s reflexive file " + path + ", " +
                  std::to_string(data.examples.size()) + " sentences (" +
                  std::to_string(withDistractors) + " with distractor noun phrases)";
    return data;
  }
  throw DataError("--dataset", "'" + options.dataset +
                                   "' is not a dataset; use synthetic, conll:PATH or lin:PATH");
}

/// Encodes word by word so every piece belongs to exactly one word. Examples without a
/// mention to score are left out; those too long for the model go to `skipped`.
std::vector<EncodedExample> encodeExamples(const coref::CorefDataset& dataset, WordPieces& pieces,
                                           const core::SpecialTokenIds& specials, int maxLength,
                                           std::vector<coref::SkippedData>& skipped) {
  std::vector<EncodedExample> encoded;
  for (std::size_t i = 0; i < dataset.examples.size(); ++i) {
    const auto& example = dataset.examples[i];
    if (example.items.empty()) continue;
    EncodedExample e;
    e.index = i;
    e.ids.push_back(specials.bos);
    std::vector<int> piecesPerWord;
    for (const auto& word : example.words) {
      auto ids = pieces(word);
      if (ids.empty()) ids.push_back(specials.unk);
      piecesPerWord.push_back(static_cast<int>(ids.size()));
      e.ids.insert(e.ids.end(), ids.begin(), ids.end());
    }
    e.ids.push_back(specials.eos);
    if (static_cast<int>(e.ids.size()) > maxLength) {
      skipped.push_back({example.source, std::to_string(e.ids.size()) +
                                             " pieces is longer than the model's maximum of " +
                                             std::to_string(maxLength)});
      continue;
    }
    e.layout = coref::layoutWords(piecesPerWord, /*withSpecials=*/true);
    encoded.push_back(std::move(e));
  }
  return encoded;
}

[[noreturn]] void throwNothingToScore(const std::string& dataset,
                                      const std::vector<coref::SkippedData>& skipped) {
  std::string why = "no example with a mention to score fits the model";
  if (!skipped.empty()) {
    why += " (" + std::to_string(skipped.size()) + " skipped; the first: " + skipped.front().where +
           ": " + skipped.front().reason + ")";
  }
  throw DataError(dataset, why);
}

/// What the probe's passes share: the model, the data and the probe's accumulators.
struct ProbePass {
  core::AttentionInspector& inspector;
  const coref::CorefDataset& dataset;
  const std::vector<EncodedExample>& encoded;
  int pad = 0;
  coref::AntecedentProbe& probe;
  coref::ExampleKeeper& keeper;
};

/// Examples [start, start + count) through the model in one batch, padded to the longest.
void probeBatch(ProbePass& p, std::size_t start, std::size_t count) {
  std::size_t longest = 0;
  for (std::size_t b = 0; b < count; ++b)
    longest = std::max(longest, p.encoded[start + b].ids.size());
  const auto T = static_cast<std::int64_t>(longest);
  auto ids = torch::full({static_cast<std::int64_t>(count), T}, p.pad, torch::kLong);
  for (std::size_t b = 0; b < count; ++b) {
    const auto& e = p.encoded[start + b];
    std::copy(e.ids.begin(), e.ids.end(), ids.data_ptr<std::int64_t>() + b * T);
  }
  const auto probabilities = p.inspector.probabilitiesOf(ids);  // [L, B, H, T, T]
  for (std::size_t b = 0; b < count; ++b) {
    const auto one = probabilities.select(1, static_cast<std::int64_t>(b)).contiguous();
    const auto& e = p.encoded[start + b];
    const auto& example = p.dataset.examples[e.index];
    p.probe.addExample(example, e.layout, one.data_ptr<float>(), static_cast<int>(T));
    if (p.keeper.wantsMore()) {
      p.keeper.offer(p.probe.record(example, e.layout, one.data_ptr<float>(), static_cast<int>(T)));
    } else {
      p.keeper.skip();
    }
  }
}

}  // namespace

CorefProbeReport probeCoreference(const CorefProbeOptions& options, const CorefProgress& progress,
                                  const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  const auto selected = selectCheckpoint(options.run, options.step);
  throwIfCancelled(cancel, "loading checkpoint");
  core::AttentionInspector inspector(selected.checkpoint);
  throwIfCancelled(cancel, "reading the dataset");
  const auto& tokenizer = inspector.tokenizer();
  const auto& specials = tokenizer.specialIds();
  const int maxLength = inspector.maxLength();
  const auto& model = inspector.config().model;

  CorefProbeReport report;
  report.source = {selected.runDir.string(), inspector.config().run.name,
                   selected.checkpoint.string(), selected.step};
  report.dataset = options.dataset;
  report.scope = options.scope == coref::ArgmaxScope::AllWords
                     ? "all words, <s> and </s> included (the official synthetic scorer)"
                     : "all words but the mention's head word, <s> and </s>";

  WordPieces pieces(tokenizer);
  auto dataset = loadDataset(options, maxLength - 2, pieces, report.datasetDescription);
  report.skipped = dataset.skipped;
  const auto encoded = encodeExamples(dataset, pieces, specials, maxLength, report.skipped);
  if (encoded.empty()) throwNothingToScore(options.dataset, report.skipped);

  throwIfCancelled(cancel, "probing");
  coref::AntecedentProbe probe(model.layers, model.heads, options.scope);
  coref::ExampleKeeper keeper(model.layers, model.heads, options.scope);
  ProbePass pass{inspector, dataset, encoded, specials.pad, probe, keeper};
  const auto batchSize = static_cast<std::size_t>(std::max(1, options.batchSize));
  for (std::size_t start = 0; start < encoded.size(); start += batchSize) {
    throwIfCancelled(cancel, "example " + std::to_string(start + 1));
    const auto count = std::min(batchSize, encoded.size() - start);
    probeBatch(pass, start, count);
    if (progress) {
      progress(static_cast<std::int64_t>(start + count), static_cast<std::int64_t>(encoded.size()));
    }
  }
  report.result = probe.result();
  report.examples = static_cast<std::int64_t>(encoded.size());
  report.kept = keeper.take();
  report.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

}  // namespace attnlab::analysis
