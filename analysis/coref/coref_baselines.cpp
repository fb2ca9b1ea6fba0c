#include "analysis/coref/coref_baselines.h"

#include "analysis/coref/reflexive_generator.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace attnlab::analysis::coref {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string mentionText(const CorefExample& ex, const Mention& m) {
  std::string text;
  for (int i = m.begin; i < m.end; ++i) {
    if (i > m.begin) text += ' ';
    text += ex.words[static_cast<size_t>(i)];
  }
  return lower(text);
}

const std::string& headText(const CorefExample& ex, const Mention& m) {
  return ex.words[static_cast<size_t>(m.headWord)];
}

/// Mentions an anaphor may take as antecedent, nearest first (see the header).
std::vector<const Mention*> candidates(const CorefExample& ex, const ProbeItem& item) {
  const Mention& anaphor = ex.mentions[static_cast<size_t>(item.mention)];
  std::vector<const Mention*> result;
  for (int j = 0; j < item.mention; ++j) {
    const Mention& c = ex.mentions[static_cast<size_t>(j)];
    const bool contains = c.begin <= anaphor.begin && anaphor.end <= c.end;
    if (contains || c.headWord == anaphor.headWord || c.headWord > anaphor.headWord) continue;
    result.push_back(&c);
  }
  std::stable_sort(result.begin(), result.end(),
                   [](const Mention* a, const Mention* b) { return a->headWord > b->headWord; });
  return result;
}

template <typename Pred>
int nearestWhere(const std::vector<const Mention*>& cands, Pred pred) {
  for (const Mention* c : cands)
    if (pred(*c)) return c->headWord;
  return -1;
}

void finish(BaselineScore& s) {
  s.accuracy = s.items > 0 ? static_cast<double>(s.correct) / static_cast<double>(s.items) : 0.0;
}

}  // namespace

Agreement mentionAgreement(const CorefExample& example, const Mention& mention) {
  using N = Number;
  using G = Gender;
  using P = Person;
  static const std::map<std::string, Agreement> pronouns = [] {
    std::map<std::string, Agreement> t;
    auto add = [&t](std::initializer_list<const char*> words, Agreement a) {
      for (const char* w : words) t[w] = a;
    };
    add({"he", "him", "his", "himself"}, {N::Singular, G::Masculine, P::Third});
    add({"she", "her", "hers", "herself"}, {N::Singular, G::Feminine, P::Third});
    add({"it", "its", "itself"}, {N::Singular, G::Neuter, P::Third});
    add({"they", "them", "their", "theirs", "themselves"}, {N::Plural, G::Unknown, P::Third});
    add({"i", "me", "my", "mine", "myself"}, {N::Singular, G::Unknown, P::First});
    add({"we", "us", "our", "ours", "ourselves"}, {N::Plural, G::Unknown, P::First});
    add({"you", "your", "yours", "yourself", "yourselves"}, {N::Unknown, G::Unknown, P::Second});
    return t;
  }();
  const std::string head = lower(headText(example, mention));
  if (auto it = pronouns.find(head); it != pronouns.end()) return it->second;

  Agreement a;
  a.person = P::Third;
  if (static_cast<size_t>(mention.headWord) < example.pos.size()) {
    const std::string& tag = example.pos[static_cast<size_t>(mention.headWord)];
    if (tag == "NNS" || tag == "NNPS") a.number = N::Plural;
    if (tag == "NN" || tag == "NNP") a.number = N::Singular;
  }
  const ReflexiveGrammar& g = reflexiveGrammar();
  // Lin et al.'s gr.refl nouns that the generator replaced with its own (docs/analysis.md,
  // "The generator against Lin's grammar"): their files use them, and without a gender the
  // sieve would let them agree with either reflexive.
  static const std::vector<std::string> linFemale = {"niece", "nun"};
  static const std::vector<std::string> linMale = {"nephew", "monk"};
  const auto listed = [&head](const std::vector<std::string>& nouns) {
    return std::find(nouns.begin(), nouns.end(), head) != nouns.end();
  };
  if (listed(g.femaleNouns) || listed(linFemale)) a.gender = G::Feminine;
  if (listed(g.maleNouns) || listed(linMale)) a.gender = G::Masculine;
  return a;
}

bool agrees(const Agreement& a, const Agreement& b) {
  auto same = [](auto x, auto y) {
    using E = decltype(x);
    return x == E::Unknown || y == E::Unknown || x == y;
  };
  return same(a.number, b.number) && same(a.gender, b.gender) && same(a.person, b.person);
}

int previousWordAnswer(const CorefExample& example, const ProbeItem& item) {
  return item.queryWord > 0 ? item.queryWord - 1 : -1;
}

int nearestMentionAnswer(const CorefExample& example, const ProbeItem& item) {
  return nearestWhere(candidates(example, item), [](const Mention&) { return true; });
}

int sameHeadAnswer(const CorefExample& example, const ProbeItem& item) {
  const std::string head = lower(example.words[static_cast<size_t>(item.queryWord)]);
  return nearestWhere(candidates(example, item),
                      [&](const Mention& c) { return lower(headText(example, c)) == head; });
}

int ruleSieveAnswer(const CorefExample& example, const ProbeItem& item) {
  const Mention& anaphor = example.mentions[static_cast<size_t>(item.mention)];
  const auto cands = candidates(example, item);
  const std::string text = mentionText(example, anaphor);
  const std::string head = lower(headText(example, anaphor));
  const Agreement features = mentionAgreement(example, anaphor);
  int answer =
      nearestWhere(cands, [&](const Mention& c) { return mentionText(example, c) == text; });
  if (answer < 0)
    answer =
        nearestWhere(cands, [&](const Mention& c) { return lower(headText(example, c)) == head; });
  if (answer < 0)
    answer = nearestWhere(
        cands, [&](const Mention& c) { return agrees(features, mentionAgreement(example, c)); });
  if (answer < 0) answer = nearestWhere(cands, [](const Mention&) { return true; });
  return answer;
}

std::vector<BaselineScore> emptyBaselines() {
  return {
      {"previous_word", "the word right before the mention's head word", 0, 0, 0.0},
      {"nearest_mention", "the head word of the nearest preceding mention", 0, 0, 0.0},
      {"same_head", "the nearest preceding mention with the same head word, else wrong", 0, 0, 0.0},
      {"rule_sieve",
       "Lee et al. 2011-style sieves: exact string, head match, number/gender/person, any "
       "mention; nearest of the first that fires",
       0, 0, 0.0},
  };
}

std::vector<BaselineScore> scoreBaselines(const CorefExample& example) {
  std::vector<BaselineScore> scores = emptyBaselines();
  using Answer = int (*)(const CorefExample&, const ProbeItem&);
  const Answer answers[] = {previousWordAnswer, nearestMentionAnswer, sameHeadAnswer,
                            ruleSieveAnswer};
  for (const ProbeItem& item : example.items) {
    for (size_t b = 0; b < scores.size(); ++b) {
      const int answer = answers[b](example, item);
      ++scores[b].items;
      if (answer >= 0 && std::find(item.correctWords.begin(), item.correctWords.end(), answer) !=
                             item.correctWords.end())
        ++scores[b].correct;
    }
  }
  for (auto& s : scores) finish(s);
  return scores;
}

std::vector<BaselineScore> scoreBaselines(const CorefDataset& dataset) {
  std::vector<BaselineScore> scores = emptyBaselines();
  for (const CorefExample& example : dataset.examples)
    mergeBaselines(scores, scoreBaselines(example));
  return scores;
}

void mergeBaselines(std::vector<BaselineScore>& into, const std::vector<BaselineScore>& more) {
  for (const BaselineScore& m : more) {
    auto it = std::find_if(into.begin(), into.end(),
                           [&](const BaselineScore& s) { return s.name == m.name; });
    if (it == into.end()) {
      into.push_back(m);
      it = into.end() - 1;
    } else {
      it->correct += m.correct;
      it->items += m.items;
    }
    finish(*it);
  }
}

}  // namespace attnlab::analysis::coref
