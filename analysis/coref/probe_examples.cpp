#include "analysis/coref/probe_examples.h"

#include <algorithm>

namespace attnlab::analysis::coref {

bool KeptItem::right(int h) const {
  const int word = picked[static_cast<std::size_t>(h)];
  return word >= 0 &&
         std::find(correctWords.begin(), correctWords.end(), word) != correctWords.end();
}

std::int64_t ProbeExamples::values() const {
  std::int64_t n = 0;
  for (const auto& e : examples)
    for (const auto& item : e.items) n += static_cast<std::int64_t>(item.rows.size());
  return n;
}

ExampleKeeper::ExampleKeeper(int layers, int heads, ArgmaxScope scope) {
  m_kept.layers = layers;
  m_kept.heads = heads;
  m_kept.scope = scope;
}

bool ExampleKeeper::offer(KeptExample example) {
  ++m_kept.probed;
  if (m_full) return false;
  std::int64_t values = 0;
  for (const auto& item : example.items) values += static_cast<std::int64_t>(item.rows.size());
  if (static_cast<int>(m_kept.examples.size()) >= ProbeExamples::kMaxExamples ||
      m_values + values > ProbeExamples::kMaxValues) {
    m_full = true;
    return false;
  }
  m_values += values;
  m_kept.examples.push_back(std::move(example));
  return true;
}

}  // namespace attnlab::analysis::coref
