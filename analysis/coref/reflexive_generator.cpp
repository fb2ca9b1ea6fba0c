#include "analysis/coref/reflexive_generator.h"

#include "core/data/hashing.h"
#include "core/errors/error.h"

#include <algorithm>
#include <cmath>

namespace attnlab::analysis::coref {

namespace {

// The project's splitmix64 (core/data/hashing.h, header-only): fully specified, so the
// data are the same everywhere.
using core::SplitMix64;

ReflexiveGrammar buildGrammar() {
  ReflexiveGrammar g;
  g.femaleNouns = {"queen",    "actress", "princess", "woman", "girl",  "mother", "sister",
                   "daughter", "wife",    "aunt",     "lady",  "bride", "witch"};
  g.maleNouns = {"king", "actor",   "prince", "man",  "boy",   "father", "brother",
                 "son",  "husband", "uncle",  "lord", "groom", "wizard"};
  // Six determiners as in Lin's gr.refl (the, some, my, your, our, her), with "this" for the
  // possessive "her": a feminine pronoun inside the antecedent NP agrees with "herself", and
  // the det-or-noun rule would score a head attending to it as a pronoun as right. No "a"
  // either ("a actress"). See docs/analysis.md#the-generator-against-lins-grammar.
  g.determiners = {"the", "this", "my", "your", "our", "some"};
  g.auxiliaries = {"can", "could", "will", "would"};
  g.transitiveVerbs = {"love", "hurt", "help", "see", "like", "hate", "blame", "trust", "know"};
  g.intransitiveVerbs = {"smile", "laugh", "sleep", "cry",  "run",
                         "swim",  "sing",  "dance", "walk", "wait"};
  g.relativizers = {"who", "that"};
  g.reflexives = {"herself", "himself"};
  using S = ReflexiveSlot;
  g.simpleTemplate = {S::Determiner, S::Noun, S::Auxiliary, S::TransitiveVerb, S::Reflexive};
  g.relativeTemplate = {S::Determiner,       S::Noun,      S::Relativizer,    S::Auxiliary,
                        S::IntransitiveVerb, S::Auxiliary, S::TransitiveVerb, S::Reflexive};
  g.distractors = {"The people believed .",     "and as obama says ,",
                   "the girl believes that .",  "and that is what the boy said .",
                   "and it is like they say .", "and as they say ,",
                   "everyone believes that",    "and"};
  return g;
}

template <typename T>
const T& pick(SplitMix64& rng, const std::vector<T>& list) {
  return list[rng.below(list.size())];
}

}  // namespace

std::vector<std::string> ReflexiveGrammar::wordsFor(ReflexiveSlot slot) const {
  switch (slot) {
    case ReflexiveSlot::Determiner:
      return determiners;
    case ReflexiveSlot::Noun: {
      std::vector<std::string> all = femaleNouns;
      all.insert(all.end(), maleNouns.begin(), maleNouns.end());
      return all;
    }
    case ReflexiveSlot::Relativizer:
      return relativizers;
    case ReflexiveSlot::Auxiliary:
      return auxiliaries;
    case ReflexiveSlot::TransitiveVerb:
      return transitiveVerbs;
    case ReflexiveSlot::IntransitiveVerb:
      return intransitiveVerbs;
    case ReflexiveSlot::Reflexive:
      return reflexives;
  }
  return {};
}

std::string ReflexiveGrammar::reflexiveFor(const std::string& noun) const {
  if (std::find(femaleNouns.begin(), femaleNouns.end(), noun) != femaleNouns.end())
    return "herself";
  if (std::find(maleNouns.begin(), maleNouns.end(), noun) != maleNouns.end()) return "himself";
  return {};
}

const ReflexiveGrammar& reflexiveGrammar() {
  static const ReflexiveGrammar grammar = buildGrammar();
  return grammar;
}

std::vector<std::string> splitWords(const std::string& phrase) {
  std::vector<std::string> words;
  std::string current;
  for (char c : phrase) {
    if (c == ' ') {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

CorefDataset generateReflexives(const ReflexiveOptions& options) {
  if (options.size < 0)
    throw ConfigError("reflexive.size",
                      "must not be negative, got " + std::to_string(options.size));
  if (!(options.relativeFraction >= 0.0 && options.relativeFraction <= 1.0))
    throw ConfigError("reflexive.relativeFraction",
                      "must lie in [0, 1], got " + std::to_string(options.relativeFraction));

  const ReflexiveGrammar& g = reflexiveGrammar();
  SplitMix64 rng(options.seed);

  // Exactly round(size * fraction) relative sentences, at positions chosen by a Fisher-Yates
  // shuffle, so that the share is the official one for every size.
  const int size = options.size;
  const auto relativeCount =
      static_cast<int>(std::llround(static_cast<double>(size) * options.relativeFraction));
  std::vector<char> relative(static_cast<size_t>(size), 0);
  std::fill_n(relative.begin(), std::min(relativeCount, size), 1);
  for (int i = size - 1; i > 0; --i)
    std::swap(relative[static_cast<size_t>(i)],
              relative[rng.below(static_cast<std::uint64_t>(i) + 1)]);

  std::vector<std::string> nouns = g.wordsFor(ReflexiveSlot::Noun);

  CorefDataset data;
  data.name = std::string("synthetic-reflexive") + (options.distractor ? "-distractor" : "") +
              "-seed" + std::to_string(options.seed);
  data.examples.reserve(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    CorefExample ex;
    ex.source = "synthetic:" + std::to_string(i);
    if (options.distractor) ex.words = splitWords(pick(rng, g.distractors));
    const int shift = static_cast<int>(ex.words.size());

    const auto& slots = relative[static_cast<size_t>(i)] ? g.relativeTemplate : g.simpleTemplate;
    std::string noun;
    for (ReflexiveSlot slot : slots) {
      switch (slot) {
        case ReflexiveSlot::Determiner:
          ex.words.push_back(pick(rng, g.determiners));
          break;
        case ReflexiveSlot::Noun:
          noun = pick(rng, nouns);
          ex.words.push_back(noun);
          break;
        case ReflexiveSlot::Relativizer:
          ex.words.push_back(pick(rng, g.relativizers));
          break;
        case ReflexiveSlot::Auxiliary:
          ex.words.push_back(pick(rng, g.auxiliaries));
          break;
        case ReflexiveSlot::TransitiveVerb:
          ex.words.push_back(pick(rng, g.transitiveVerbs));
          break;
        case ReflexiveSlot::IntransitiveVerb:
          ex.words.push_back(pick(rng, g.intransitiveVerbs));
          break;
        case ReflexiveSlot::Reflexive:
          ex.words.push_back(g.reflexiveFor(noun));
          break;
      }
    }
    const int det = shift;
    const int head = shift + 1;
    const int refl = static_cast<int>(ex.words.size()) - 1;
    ex.mentions = {Mention{det, head + 1, head, 0}, Mention{refl, refl + 1, refl, 0}};
    ex.items = {ProbeItem{1, refl, {det, head}}};
    data.examples.push_back(std::move(ex));
  }
  return data;
}

}  // namespace attnlab::analysis::coref
