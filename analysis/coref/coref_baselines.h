#pragma once

#include "analysis/coref/coref_example.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::analysis::coref {

/// Accuracy of one attention-free baseline on the same items as the probe, so that a head's
/// accuracy can be read against what trivial and rule-based resolvers get (Clark et al. 2019
/// report nearest 27, head match 52, rule-based 69 against the best head's 65).
struct BaselineScore {
  std::string name;         ///< "previous_word", "nearest_mention", "same_head", "rule_sieve"
  std::string description;  ///< one line for reports
  std::int64_t correct = 0;
  std::int64_t items = 0;
  double accuracy = 0.0;  ///< correct / items, 0 with no items
};

/// Number, gender and person of a mention; Unknown agrees with anything.
enum class Number { Unknown, Singular, Plural };
enum class Gender { Unknown, Masculine, Feminine, Neuter };
enum class Person { Unknown, First, Second, Third };
struct Agreement {
  Number number = Number::Unknown;
  Gender gender = Gender::Unknown;
  Person person = Person::Unknown;
};

/// Agreement features of a mention from its head word: a pronoun table (he/him/his/himself
/// masc sg 3rd, she/her/hers/herself fem sg 3rd, it/its/itself neuter sg 3rd,
/// they/them/their/theirs/themselves pl 3rd, I/me/my/mine/myself sg 1st,
/// we/us/our/ours/ourselves pl 1st, you/your/yours/yourself/yourselves 2nd); any other head
/// is a noun: 3rd person, number from its POS tag (NNS/NNPS plural, NN/NNP singular) when
/// known, gender from the reflexive generator's gendered noun lists and the four
/// nouns of Lin et al.'s grammar it does not use (niece, nun; nephew, monk) when listed.
Agreement mentionAgreement(const CorefExample& example, const Mention& mention);

/// True when no feature known on both sides differs.
bool agrees(const Agreement& a, const Agreement& b);

/// The word each baseline answers for one item (an example word index), -1 for no answer.
/// Candidates are the mentions before the anaphor in textual order that neither contain it
/// nor share its head word; "nearest" = the candidate whose head word is closest before the
/// anaphor's head word.
///  - previous_word: the word right before the query word (0 on the synthetic data by
///    construction: that word is the transitive verb);
///  - nearest_mention: the nearest candidate's head word;
///  - same_head: the nearest candidate whose head word equals the query's (case-insensitive),
///    else no answer;
///  - rule_sieve: after Lee et al. (2011), as Clark et al.: the nearest candidate of the first
///    sieve that has one, sieves (1) the whole mention's text equal (case-insensitive),
///    (2) head words equal, (3) number, gender and person agree, (4) any mention.
int previousWordAnswer(const CorefExample& example, const ProbeItem& item);
int nearestMentionAnswer(const CorefExample& example, const ProbeItem& item);
int sameHeadAnswer(const CorefExample& example, const ProbeItem& item);
int ruleSieveAnswer(const CorefExample& example, const ProbeItem& item);

/// The four baselines, in the order above, with names and descriptions and zero counts.
std::vector<BaselineScore> emptyBaselines();

/// Scores the four baselines on one example's items.
std::vector<BaselineScore> scoreBaselines(const CorefExample& example);

/// Scores the four baselines on all items of a dataset.
std::vector<BaselineScore> scoreBaselines(const CorefDataset& dataset);

/// Adds `more`'s counts to `into` (matched by name; names missing from `into` are appended)
/// and recomputes the accuracies.
void mergeBaselines(std::vector<BaselineScore>& into, const std::vector<BaselineScore>& more);

}  // namespace attnlab::analysis::coref
