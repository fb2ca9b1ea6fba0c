#pragma once

#include "analysis/coref/coref_example.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis::coref {

/// Options of the synthetic reflexive data. The defaults reproduce the shape of the official
/// probe data (Lin et al.'s refl.0, used by Attention Guidance's run_coreference.py): 5,570
/// simple and 4,430 relative-clause sentences per 10,000, no distractor phrase.
struct ReflexiveOptions {
  std::uint64_t seed = 1;           ///< same seed, same data on every platform
  int size = 1000;                  ///< number of sentences
  bool distractor = false;          ///< prepend one of the 8 official distractor phrases
  double relativeFraction = 0.443;  ///< share of "Det N Rel Aux VI Aux VT Refl" sentences
};

/// A word slot of a template; each slot draws from one word list of the grammar.
enum class ReflexiveSlot {
  Determiner,
  Noun,
  Relativizer,
  Auxiliary,
  TransitiveVerb,
  IntransitiveVerb,
  Reflexive
};

/// The grammar the generator draws from, after Lin et al.'s gr.refl (templates and list
/// sizes; the words are our own): 13 female and 13 male nouns, 6 determiners, 4 auxiliaries,
/// 9 transitive verbs, 10 intransitive verbs (gr.refl has 9), Rel in {who, that}; see
/// docs/analysis.md#synthetic-reflexive-data. The words are plain lowercase words so that a small
/// SentencePiece vocabulary keeps most of them in one piece (the official probe keeps only
/// one-piece sentences). Exposed so that tests and reports can check and show what the data is made
/// of.
struct ReflexiveGrammar {
  std::vector<std::string> femaleNouns;
  std::vector<std::string> maleNouns;
  std::vector<std::string> determiners;
  std::vector<std::string> auxiliaries;
  std::vector<std::string> transitiveVerbs;
  std::vector<std::string> intransitiveVerbs;
  std::vector<std::string> relativizers;  ///< who, that
  std::vector<std::string> reflexives;    ///< herself (female nouns), himself (male nouns)
  /// "Det N Aux VT Refl": the reflexive is word 4.
  std::vector<ReflexiveSlot> simpleTemplate;
  /// "Det N Rel Aux VI Aux VT Refl": the reflexive is word 7.
  std::vector<ReflexiveSlot> relativeTemplate;
  /// The 8 distractor phrases of run_coreference.py, verbatim; split on spaces into words.
  std::vector<std::string> distractors;

  /// The words a slot may hold (Noun: female then male nouns).
  std::vector<std::string> wordsFor(ReflexiveSlot slot) const;
  /// "herself" for a female noun, "himself" for a male one, "" for any other word.
  std::string reflexiveFor(const std::string& noun) const;
};

/// The one grammar instance (built on first use).
const ReflexiveGrammar& reflexiveGrammar();

/// Splits a distractor phrase into words on single spaces ("and as obama says ," -> 5 words).
std::vector<std::string> splitWords(const std::string& phrase);

/// Generates `options.size` sentences. Deterministic across compilers and standard libraries:
/// it uses its own splitmix64 generator and its own integer draws, never std distributions.
/// Every example has two mentions of cluster 0 (the NP det..noun with head = noun, and the
/// reflexive) and one ProbeItem: query = the reflexive, correct = {det, noun}, as the official
/// scorer counts both. The word before the reflexive is always the transitive verb, never the
/// antecedent. With `distractor`, the phrase's words come first and every index shifts by
/// their number. Exactly round(size * relativeFraction) sentences use the relative template,
/// at positions drawn by the same generator. Throws ConfigError for a negative size or a
/// fraction outside [0, 1].
CorefDataset generateReflexives(const ReflexiveOptions& options);

}  // namespace attnlab::analysis::coref
