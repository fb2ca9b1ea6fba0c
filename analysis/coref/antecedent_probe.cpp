#include "analysis/coref/antecedent_probe.h"

#include "core/errors/error.h"

#include <algorithm>
#include <string>

namespace attnlab::analysis::coref {

AntecedentProbe::AntecedentProbe(int layers, int heads, ArgmaxScope scope)
    : m_layers(layers), m_heads(heads), m_scope(scope), m_baselines(emptyBaselines()) {
  if (layers < 1 || heads < 1)
    throw ConfigError("coref probe", "needs at least one layer and one head, got " +
                                         std::to_string(layers) + " x " + std::to_string(heads));
  m_correct.assign(static_cast<size_t>(layers) * static_cast<size_t>(heads), 0);
}

void AntecedentProbe::check(const CorefExample& example, const WordLayout& layout, int T) const {
  if (layout.exampleWords() != static_cast<int>(example.words.size()))
    throw DataError(example.source, "word layout has " + std::to_string(layout.exampleWords()) +
                                        " words but the example " +
                                        std::to_string(example.words.size()));
  if (layout.pieces > T)
    throw DataError(example.source, "word layout has " + std::to_string(layout.pieces) +
                                        " pieces but the attention only " + std::to_string(T));
  for (const ProbeItem& item : example.items)
    if (item.queryWord < 0 || item.queryWord >= static_cast<int>(example.words.size()))
      throw DataError(example.source,
                      "item query word " + std::to_string(item.queryWord) + " is out of range");
}

std::vector<std::vector<int>> AntecedentProbe::answers(const CorefExample& example,
                                                       const WordLayout& layout,
                                                       const float* attention, int T) const {
  check(example, layout, T);
  const size_t plane = static_cast<size_t>(T) * static_cast<size_t>(T);
  const int heads = m_layers * m_heads;
  std::vector<std::vector<int>> result(example.items.size(), std::vector<int>(heads, -1));
  std::vector<float> row(static_cast<size_t>(layout.words()));
  for (size_t i = 0; i < example.items.size(); ++i) {
    const int query = layout.layoutWord(example.items[i].queryWord);
    for (int h = 0; h < heads; ++h) {
      wordAttentionRow(attention + static_cast<size_t>(h) * plane, T, layout, query, row.data());
      result[i][static_cast<size_t>(h)] = argmaxWord(row, layout, query, m_scope);
    }
  }
  return result;
}

void AntecedentProbe::addExample(const CorefExample& example, const WordLayout& layout,
                                 const float* attention, int T) {
  const auto picked = answers(example, layout, attention, T);
  for (size_t i = 0; i < example.items.size(); ++i) {
    const ProbeItem& item = example.items[i];
    for (size_t h = 0; h < m_correct.size(); ++h) {
      const int word = layout.exampleWord(picked[i][h]);
      if (word >= 0 && std::find(item.correctWords.begin(), item.correctWords.end(), word) !=
                           item.correctWords.end())
        ++m_correct[h];
    }
  }
  m_items += static_cast<std::int64_t>(example.items.size());
  ++m_examples;
  mergeBaselines(m_baselines, scoreBaselines(example));
}

KeptExample AntecedentProbe::record(const CorefExample& example, const WordLayout& layout,
                                    const float* attention, int T) const {
  check(example, layout, T);
  const size_t plane = static_cast<size_t>(T) * static_cast<size_t>(T);
  const int heads = m_layers * m_heads;
  const auto W = static_cast<size_t>(layout.words());
  KeptExample kept;
  kept.source = example.source;
  for (int w = 0; w < layout.words(); ++w) {
    const int word = layout.exampleWord(w);
    kept.words.push_back(word >= 0 ? example.words[static_cast<size_t>(word)]
                                   : std::string(w == 0 ? "<s>" : "</s>"));
  }
  for (const ProbeItem& item : example.items) {
    KeptItem k;
    k.queryWord = layout.layoutWord(item.queryWord);
    for (const int c : item.correctWords) k.correctWords.push_back(layout.layoutWord(c));
    k.picked.assign(static_cast<size_t>(heads), -1);
    k.rows.resize(static_cast<size_t>(heads) * W);
    for (int h = 0; h < heads; ++h) {
      float* row = k.rows.data() + static_cast<size_t>(h) * W;
      wordAttentionRow(attention + static_cast<size_t>(h) * plane, T, layout, k.queryWord, row);
      // The same rule answers() and addExample() score.
      k.picked[static_cast<size_t>(h)] =
          argmaxWord(std::span<const float>(row, W), layout, k.queryWord, m_scope);
    }
    kept.items.push_back(std::move(k));
  }
  return kept;
}

ProbeResult AntecedentProbe::result() const {
  ProbeResult r;
  r.layers = m_layers;
  r.heads = m_heads;
  r.scope = m_scope;
  r.examples = m_examples;
  r.items = m_items;
  r.correct = m_correct;
  r.accuracy.assign(m_correct.size(), 0.0);
  r.baselines = m_baselines;
  if (m_items == 0) return r;
  double sum = 0.0;
  for (size_t h = 0; h < m_correct.size(); ++h) {
    r.accuracy[h] = static_cast<double>(m_correct[h]) / static_cast<double>(m_items);
    sum += r.accuracy[h];
    if (r.bestLayer < 0 || r.accuracy[h] > r.bestAccuracy) {
      r.bestAccuracy = r.accuracy[h];
      r.bestLayer = static_cast<int>(h) / m_heads;
      r.bestHead = static_cast<int>(h) % m_heads;
    }
  }
  r.meanAccuracy = sum / static_cast<double>(m_correct.size());
  return r;
}

}  // namespace attnlab::analysis::coref
