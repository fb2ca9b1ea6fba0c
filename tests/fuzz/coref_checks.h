#pragma once

// What the coreference readers promise of the examples they return (coref_example.h): word
// indices everywhere are positions in `words`, so the probe indexes with them unchecked.

#include "analysis/coref/coref_example.h"
#include "tests/fuzz/fuzz_support.h"

#include <string>

namespace attnlab::fuzz {

inline void checkCorefDataset(const analysis::coref::CorefDataset& dataset) {
  for (const auto& ex : dataset.examples) {
    const int words = static_cast<int>(ex.words.size());
    const std::string at = " (example " + ex.source + ")";
    if (ex.source.empty()) reportFinding("an example without a source");
    if (!ex.pos.empty() && ex.pos.size() != ex.words.size()) {
      reportFinding("POS tags and words differ in number" + at);
    }
    for (const auto& w : ex.words) {
      if (w.empty()) reportFinding("an empty word" + at);
      if (w.find_first_of(" \t\r\n\v\f") != std::string::npos) {
        reportFinding("a word with white space in it: '" + w + "'" + at);
      }
    }
    int lastBegin = -1;
    for (const auto& m : ex.mentions) {
      if (m.begin < 0 || m.end > words || m.begin >= m.end) {
        reportFinding("mention [" + std::to_string(m.begin) + ", " + std::to_string(m.end) +
                      ") outside the example's " + std::to_string(words) + " words" + at);
      }
      if (m.headWord < m.begin || m.headWord >= m.end) {
        reportFinding("a mention's head word lies outside it" + at);
      }
      if (m.begin < lastBegin) reportFinding("mentions are not in textual order" + at);
      lastBegin = m.begin;
    }
    for (const auto& item : ex.items) {
      if (item.mention < 0 || item.mention >= static_cast<int>(ex.mentions.size())) {
        reportFinding("an item names mention " + std::to_string(item.mention) + " of " +
                      std::to_string(ex.mentions.size()) + at);
      }
      if (item.queryWord < 0 || item.queryWord >= words) {
        reportFinding("an item's query word lies outside the example" + at);
      }
      if (item.correctWords.empty()) reportFinding("an item with no correct word" + at);
      for (const int c : item.correctWords) {
        if (c < 0 || c >= words) reportFinding("a correct word outside the example" + at);
        if (c == item.queryWord) reportFinding("the query word counts as its own answer" + at);
      }
    }
  }
  for (const auto& s : dataset.skipped) {
    if (s.where.empty() || s.reason.empty()) {
      reportFinding("a skipped unit without a place or a reason: '" + s.where + "': '" + s.reason +
                    "'");
    }
  }
}

}  // namespace attnlab::fuzz
