// The coreference data sources: the synthetic reflexive generator (checked slot by slot against
// its grammar), the CoNLL-2012 reader and the reader of Lin et al.'s reflexive files (checked
// against the fixtures in tests/fixtures/coref/, whose mentions, heads and items were worked
// out by hand).
#include "analysis/coref/conll_reader.h"
#include "analysis/coref/coref_baselines.h"
#include "analysis/coref/lin_reflexive_reader.h"
#include "analysis/coref/reflexive_generator.h"
#include "core/errors/error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace attnlab::analysis::coref;

namespace {

const std::string kFixtures = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/coref/";

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

bool contains(const std::vector<std::string>& list, const std::string& word) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// "begin-end:head:cluster" per mention, so a failure shows the whole list.
QString mentionsText(const CorefExample& ex) {
  QStringList parts;
  for (const Mention& m : ex.mentions)
    parts << QString("%1-%2:%3:%4").arg(m.begin).arg(m.end).arg(m.headWord).arg(m.cluster);
  return parts.join(' ');
}

// "mention/query/[correct...]" per item.
QString itemsText(const CorefExample& ex) {
  QStringList parts;
  for (const ProbeItem& it : ex.items) {
    QStringList correct;
    for (int w : it.correctWords) correct << QString::number(w);
    parts << QString("m%1/q%2/[%3]").arg(it.mention).arg(it.queryWord).arg(correct.join(','));
  }
  return parts.join(' ');
}

QString wordsText(const CorefExample& ex) {
  QStringList parts;
  for (const auto& w : ex.words) parts << qs(w);
  return parts.join(' ');
}

std::vector<QString> sources(const CorefDataset& d) {
  std::vector<QString> s;
  for (const auto& e : d.examples) s.push_back(qs(e.source));
  return s;
}

}  // namespace

class TestCorefData : public QObject {
  Q_OBJECT
 private slots:
  // --- generator ---------------------------------------------------------------------------
  void grammarHasLinsSizes() {
    const ReflexiveGrammar& g = reflexiveGrammar();
    QCOMPARE(g.femaleNouns.size(), size_t(13));
    QCOMPARE(g.maleNouns.size(), size_t(13));
    QCOMPARE(g.determiners.size(), size_t(6));
    QCOMPARE(g.auxiliaries.size(), size_t(4));
    QCOMPARE(g.transitiveVerbs.size(), size_t(9));
    QCOMPARE(g.intransitiveVerbs.size(), size_t(10));
    QCOMPARE(g.relativizers, (std::vector<std::string>{"who", "that"}));
    QCOMPARE(g.distractors.size(), size_t(8));
    QCOMPARE(g.simpleTemplate.size(), size_t(5));
    QCOMPARE(g.relativeTemplate.size(), size_t(8));
    // No noun is both female and male, so the reflexive is never ambiguous.
    for (const auto& n : g.femaleNouns) QVERIFY(!contains(g.maleNouns, n));
  }

  void everySentenceFollowsATemplate() {
    const ReflexiveGrammar& g = reflexiveGrammar();
    for (bool distractor : {false, true}) {
      const CorefDataset d = generateReflexives({7, 2000, distractor, 0.443});
      QCOMPARE(d.examples.size(), size_t(2000));
      QVERIFY(d.skipped.empty());
      for (size_t i = 0; i < d.examples.size(); ++i) {
        const CorefExample& ex = d.examples[i];
        QCOMPARE(qs(ex.source), QString("synthetic:%1").arg(i));
        QVERIFY(ex.pos.empty());
        int shift = 0;
        if (distractor) {
          // The prefix is one of the 8 phrases, word for word.
          bool found = false;
          for (const auto& phrase : g.distractors) {
            const auto words = splitWords(phrase);
            if (words.size() < ex.words.size() &&
                std::equal(words.begin(), words.end(), ex.words.begin()) &&
                (ex.words.size() - words.size() == 5 || ex.words.size() - words.size() == 8)) {
              shift = static_cast<int>(words.size());
              found = true;
              break;
            }
          }
          QVERIFY2(found, qPrintable(wordsText(ex)));
        }
        const int n = static_cast<int>(ex.words.size()) - shift;
        QVERIFY2(n == 5 || n == 8, qPrintable(wordsText(ex)));
        const auto& tmpl = n == 5 ? g.simpleTemplate : g.relativeTemplate;
        for (int k = 0; k < n; ++k) {
          const std::string& word = ex.words[static_cast<size_t>(shift + k)];
          QVERIFY2(contains(g.wordsFor(tmpl[static_cast<size_t>(k)]), word),
                   qPrintable(wordsText(ex)));
        }
        const std::string& noun = ex.words[static_cast<size_t>(shift + 1)];
        const std::string& refl = ex.words.back();
        QCOMPARE(qs(refl), qs(contains(g.femaleNouns, noun) ? "herself" : "himself"));
        // Indices: NP det..noun with head noun, the reflexive at 4 or 7 (plus the shift).
        const int r = shift + (n == 5 ? 4 : 7);
        QCOMPARE(r, static_cast<int>(ex.words.size()) - 1);
        QCOMPARE(ex.mentions.size(), size_t(2));
        QCOMPARE(mentionsText(ex), QString("%1-%2:%3:0 %4-%5:%4:0")
                                       .arg(shift)
                                       .arg(shift + 2)
                                       .arg(shift + 1)
                                       .arg(r)
                                       .arg(r + 1));
        QCOMPARE(itemsText(ex), QString("m1/q%1/[%2,%3]").arg(r).arg(shift).arg(shift + 1));
        // The antecedent is never the word right before the reflexive.
        QVERIFY(r - 1 != shift && r - 1 != shift + 1);
      }
    }
  }

  void sameSeedSameDataOtherSeedOtherData() {
    const CorefDataset a = generateReflexives({42, 500, true, 0.443});
    const CorefDataset b = generateReflexives({42, 500, true, 0.443});
    const CorefDataset c = generateReflexives({43, 500, true, 0.443});
    int differing = 0;
    for (size_t i = 0; i < a.examples.size(); ++i) {
      QCOMPARE(a.examples[i].words, b.examples[i].words);
      differing += a.examples[i].words != c.examples[i].words ? 1 : 0;
    }
    QVERIFY(differing > 400);
  }

  void firstSentencesArePinned() {
    // Pins the generator's own PRNG (splitmix64 and rejection draws): these words must not
    // change between compilers or standard libraries.
    const CorefDataset d = generateReflexives({1, 3, false, 0.443});
    QCOMPARE(wordsText(d.examples[0]), QString("the woman that can swim could love herself"));
    QCOMPARE(wordsText(d.examples[1]), QString("our daughter will help herself"));
    QCOMPARE(wordsText(d.examples[2]), QString("our wife would love herself"));
  }

  void relativeShareIsTheOfficialOne() {
    const CorefDataset d = generateReflexives({3, 10000, false, 0.443});
    int relative = 0;
    for (const auto& ex : d.examples) relative += ex.words.size() == 8 ? 1 : 0;
    // 4,430 of 10,000 in the official data; the generator places exactly round(n * f).
    QVERIFY(std::abs(relative / 10000.0 - 0.443) < 0.01);
    QCOMPARE(relative, 4430);
    const CorefDataset none = generateReflexives({3, 100, false, 0.0});
    for (const auto& ex : none.examples) QCOMPARE(ex.words.size(), size_t(5));
  }

  void distractorsShiftIndicesByThePhraseLength() {
    const CorefDataset plain = generateReflexives({5, 300, false, 0.443});
    const CorefDataset shifted = generateReflexives({5, 300, true, 0.443});
    std::set<size_t> lengths;
    for (const auto& ex : shifted.examples) {
      const int refl = ex.items[0].queryWord;
      const int shift = ex.mentions[0].begin;
      lengths.insert(static_cast<size_t>(shift));
      QCOMPARE(refl - shift, ex.words.size() - shift == 5 ? 4 : 7);
      QCOMPARE(ex.items[0].correctWords, (std::vector<int>{shift, shift + 1}));
    }
    // Phrase lengths of the 8 phrases: 4, 5, 5, 8, 7, 5, 3, 1.
    QCOMPARE(lengths, (std::set<size_t>{1, 3, 4, 5, 7, 8}));
    QCOMPARE(splitWords("and as obama says ,").size(), size_t(5));
    QCOMPARE(splitWords("and").size(), size_t(1));
    QVERIFY(plain.examples[0].mentions[0].begin == 0);
  }

  void previousWordBaselineScoresZero() {
    for (bool distractor : {false, true}) {
      const CorefDataset d = generateReflexives({11, 1000, distractor, 0.443});
      const auto scores = scoreBaselines(d);
      QCOMPARE(qs(scores[0].name), QString("previous_word"));
      QCOMPARE(scores[0].items, std::int64_t(1000));
      QCOMPARE(scores[0].correct, std::int64_t(0));
      // The only earlier mention is the antecedent NP.
      QCOMPARE(qs(scores[1].name), QString("nearest_mention"));
      QCOMPARE(scores[1].correct, std::int64_t(1000));
    }
  }

  // The engine's determiners differ from gr.refl's in one word: "this" for the possessive
  // "her", a feminine pronoun that agrees with "herself" and that the det-or-noun rule would
  // score as right inside the antecedent NP (docs/analysis.md#the-generator-against-lins-grammar).
  // No determiner may carry a gender.
  void determinersCarryNoGender() {
    const ReflexiveGrammar& g = reflexiveGrammar();
    CorefExample ex;
    ex.words = g.determiners;
    for (int i = 0; i < static_cast<int>(ex.words.size()); ++i) {
      const Agreement a = mentionAgreement(ex, Mention{i, i + 1, i, -1});
      QVERIFY2(a.gender == Gender::Unknown, ex.words[static_cast<size_t>(i)].c_str());
    }
  }

  void badOptionsThrow() {
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, generateReflexives({1, -1, false, 0.4}));
    QVERIFY_THROWS_EXCEPTION(attnlab::ConfigError, generateReflexives({1, 10, false, 1.5}));
  }

  // --- CoNLL-2012 --------------------------------------------------------------------------
  void headWordHeuristic() {
    using V = std::vector<std::string>;
    const V kingOfFrance = {"DT", "NN", "IN", "NNP"};
    QCOMPARE(conllHeadWord(kingOfFrance, 0, 4), 1);
    const V manWho = {"DT", "NN", "WP", "VBD"};
    QCOMPARE(conllHeadWord(manWho, 0, 4), 1);
    const V hisMother = {"PRP$", "NN"};
    QCOMPARE(conllHeadWord(hisMother, 0, 2), 1);
    QCOMPARE(conllHeadWord(hisMother, 0, 1), 0);
    const V johnsCar = {"NNP", "POS", "NN"};
    QCOMPARE(conllHeadWord(johnsCar, 0, 3), 2);
    const V threeOfThem = {"CD", "IN", "PRP"};  // no noun before "of": no cut, last = them
    QCOMPARE(conllHeadWord(threeOfThem, 0, 3), 2);
    const V adjectives = {"DT", "JJ", "JJ"};
    QCOMPARE(conllHeadWord(adjectives, 0, 3), 2);
    QCOMPARE(conllHeadWord(V{}, 3, 6), 5);
  }

  void readsWholeDocuments() {
    const std::string path = kFixtures + "sample.conll";
    const CorefDataset d = readConll2012(path, {});
    QCOMPARE(qs(d.name), QString("sample.conll"));
    QVERIFY(d.skipped.empty());
    QCOMPARE(d.examples.size(), size_t(2));

    const CorefExample& doc1 = d.examples[0];
    QCOMPARE(qs(doc1.source), qs(path + ":2"));
    QCOMPARE(wordsText(doc1), QString("The king of France met his mother . "
                                      "She told him that the king 's brother saw her . "
                                      "The brother smiled ."));
    QCOMPARE(doc1.pos.size(), size_t(23));
    QCOMPARE(qs(doc1.pos[5]), QString("PRP$"));
    QCOMPARE(qs(doc1.pos[14]), QString("POS"));
    // By hand: [The king of France]0 (head king, cut at "of"), [France]1, [his mother]2,
    // [his]0, [She]2, [him]0, [the king 's brother]3 (head brother), [the king]0, [her]2,
    // [The brother]3; ordered by begin, outer span first.
    QCOMPARE(mentionsText(doc1), QString("0-4:1:0 3-4:3:1 5-7:6:2 5-6:5:0 8-9:8:2 10-11:10:0 "
                                         "12-16:15:3 12-14:13:0 17-18:17:2 19-21:20:3"));
    QCOMPARE(itemsText(doc1), QString("m3/q5/[1] m4/q8/[6] m5/q10/[1,5] m7/q13/[1,5,10] "
                                      "m8/q17/[6,8] m9/q20/[15]"));

    const CorefExample& doc2 = d.examples[1];
    QCOMPARE(qs(doc2.source), qs(path + ":30"));
    // 13 columns (one predicate-argument column): coreference is still the last one;
    // -LRB-/-RRB- come back as brackets.
    QCOMPARE(wordsText(doc2), QString("Mary said she would call the doctors . "
                                      "They were busy ( very ) ."));
    QCOMPARE(mentionsText(doc2), QString("0-1:0:7 2-3:2:7 5-7:6:8 8-9:8:8"));
    QCOMPARE(itemsText(doc2), QString("m1/q2/[0] m3/q8/[6]"));

    ConllOptions raw;
    raw.normaliseWords = false;
    QCOMPARE(qs(readConll2012(path, raw).examples[1].words[11]), QString("-LRB-"));
  }

  void packsSentencesIntoWindows() {
    const std::string path = kFixtures + "sample.conll";
    ConllOptions o;
    o.maxWords = 20;  // 8 + 11 fit, + 4 does not; doc2: 8 + 7
    CorefDataset d = readConll2012(path, o);
    QVERIFY(d.skipped.empty());
    QCOMPARE(sources(d),
             (std::vector<QString>{qs(path + ":2"), qs(path + ":23"), qs(path + ":30")}));
    QCOMPARE(d.examples[0].words.size(), size_t(19));
    QCOMPARE(itemsText(d.examples[0]),
             QString("m3/q5/[1] m4/q8/[6] m5/q10/[1,5] m7/q13/[1,5,10] m8/q17/[6,8]"));
    // "The brother" alone in its window: its antecedent is in the previous window.
    QCOMPARE(mentionsText(d.examples[1]), QString("0-2:1:3"));
    QCOMPARE(itemsText(d.examples[1]), QString(""));

    o.maxWords = 12;  // every sentence alone
    d = readConll2012(path, o);
    QCOMPARE(sources(d), (std::vector<QString>{qs(path + ":2"), qs(path + ":11"), qs(path + ":23"),
                                               qs(path + ":30"), qs(path + ":39")}));
    QCOMPARE(mentionsText(d.examples[1]), QString("0-1:0:2 2-3:2:0 4-8:7:3 4-6:5:0 9-10:9:2"));
    QCOMPARE(itemsText(d.examples[1]), QString("m3/q5/[2] m4/q9/[0]"));
    QCOMPARE(itemsText(d.examples[0]), QString("m3/q5/[1]"));

    o.keepExamplesWithoutItems = false;
    d = readConll2012(path, o);
    QCOMPARE(sources(d),
             (std::vector<QString>{qs(path + ":2"), qs(path + ":11"), qs(path + ":30")}));

    o = ConllOptions{};
    o.maxWords = 10;  // the 11-word sentence cannot fit
    d = readConll2012(path, o);
    QCOMPARE(d.skipped.size(), size_t(1));
    QCOMPARE(qs(d.skipped[0].where), qs(path + ":11"));
    QCOMPARE(qs(d.skipped[0].reason),
             QString("sentence of 11 words is longer than the model's maximum of 10"));
    // The windows on either side of it are not joined.
    QCOMPARE(sources(d), (std::vector<QString>{qs(path + ":2"), qs(path + ":23"), qs(path + ":30"),
                                               qs(path + ":39")}));
  }

  void reportsEachKindOfBrokenData() {
    const std::string path = kFixtures + "broken.conll";
    const CorefDataset d = readConll2012(path, {});
    struct Expected {
      int line;
      const char* reason;
    };
    const std::vector<Expected> expected = {
        {7, "line has 5 columns, CoNLL-2012 needs at least 12"},
        {11, "word number 'one' is not an integer"},
        {15, "word number 3 where 2 was expected"},
        {23, "coreference column '(x' cannot be parsed"},
        {27, "coreference column closes cluster 4, which is not open"},
        {29, "mention of cluster 5 opened here is still open at the end of the sentence"},
        {38,
         "document part 'bc/test/00/bad/002' has no '#end document' before the next "
         "'#begin document' at line 42; its 1 sentences are skipped"},
        {48, "'#end document' without an open '#begin document'"},
        {49, "word lines outside '#begin document' ... '#end document'"},
        {52,
         "document part 'bc/test/00/bad/004' has no '#end document' before the end of "
         "the file (line 54); its 1 sentences are skipped"},
    };
    QCOMPARE(d.skipped.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(qs(d.skipped[i].where), qs(path + ":" + std::to_string(expected[i].line)));
      QCOMPARE(qs(d.skipped[i].reason), QString(expected[i].reason));
    }
    // The valid sentences are still read; a skipped sentence splits its part's windows.
    QCOMPARE(sources(d), (std::vector<QString>{qs(path + ":2"), qs(path + ":17"), qs(path + ":33"),
                                               qs(path + ":43")}));
    QCOMPARE(wordsText(d.examples[0]), QString("Anna slept ."));
    QCOMPARE(wordsText(d.examples[1]), QString("Anna smiled ."));
    QCOMPARE(wordsText(d.examples[2]), QString("Bob saw himself"));
    QCOMPARE(itemsText(d.examples[2]), QString("m1/q2/[0]"));
    QCOMPARE(itemsText(d.examples[3]), QString("m1/q2/[0]"));
  }

  void missingFileThrows() {
    QVERIFY_THROWS_EXCEPTION(attnlab::DataError,
                             readConll2012(kFixtures + "no-such-file.conll", {}));
  }

  // --- Lin et al.'s reflexive files ----------------------------------------------------------
  // lin_reflexives.tsv holds lines in the release's exact format: refl.0's empty last field,
  // refl.1-4's "4 5 " with its trailing space (PP "by", relative clauses with the distractor
  // inside or after them), refl.5-8's two phrases in one field, one line with one field per
  // phrase, a blank line and six bad lines.
  void linReaderReadsTheReleaseFormat() {
    const std::string path = kFixtures + "lin_reflexives.tsv";
    const CorefDataset d = readLinReflexives(path);
    QCOMPARE(qs(d.name), QString("lin_reflexives.tsv"));
    struct Expected {
      int line;
      const char* words;
      const char* mentions;  // begin-end:head:cluster; distractors are singletons (-1)
      const char* items;
    };
    const std::vector<Expected> expected = {
        {1, "our prince will love himself", "0-2:1:0 4-5:4:0", "m1/q4/[0,1]"},
        {2, "the actor who could smile could hurt himself", "0-2:1:0 7-8:7:0", "m1/q7/[0,1]"},
        {3, "some husband could accept your wizard by himself", "0-2:1:0 4-6:5:-1 7-8:7:0",
         "m2/q7/[0,1]"},
        {5, "my girl could kick our king by herself", "0-2:1:0 4-6:5:-1 7-8:7:0", "m2/q7/[0,1]"},
        {6, "your wife who your sister will hurt will clean herself", "0-2:1:0 3-5:4:-1 9-10:9:0",
         "m2/q9/[0,1]"},
        {9, "some girl that would cry will love your niece by herself",
         "0-2:1:0 7-9:8:-1 10-11:10:0", "m2/q10/[0,1]"},
        {11, "my queen who can kick her girl would remember your lady by herself",
         "0-2:1:0 5-7:6:-1 9-11:10:-1 12-13:12:0", "m3/q12/[0,1]"},
        {14, "the king that the queen would hit would remember her nun by himself",
         "0-2:1:0 3-5:4:-1 9-11:10:-1 12-13:12:0", "m3/q12/[0,1]"},
    };
    QCOMPARE(d.examples.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const CorefExample& ex = d.examples[i];
      QCOMPARE(qs(ex.source), qs(path + ":" + std::to_string(expected[i].line)));
      QCOMPARE(wordsText(ex), QString(expected[i].words));
      QCOMPARE(mentionsText(ex), QString(expected[i].mentions));
      QCOMPARE(itemsText(ex), QString(expected[i].items));
      QVERIFY(ex.pos.empty());
    }

    // Each bad line with its file:line and reason, in file order; the blank line 8 is not one.
    const std::vector<std::pair<int, const char*>> skipped = {
        {4,
         "has 2 tab-separated field(s); a line needs at least 3: sentence, reflexive index, "
         "antecedent indices"},
        {7, "reflexive index 'four' is not an integer"},
        {10, "distractor index 9 is out of range: the sentence has 5 words (0 to 4)"},
        {12, "reflexive index 4 lies inside the antecedent group (0 1 4)"},
        {13, "the sentence is empty"},
        {15, "reflexive index 5 is out of range: the sentence has 5 words (0 to 4)"},
    };
    QCOMPARE(d.skipped.size(), skipped.size());
    for (size_t i = 0; i < skipped.size(); ++i) {
      QCOMPARE(qs(d.skipped[i].where), qs(path + ":" + std::to_string(skipped[i].first)));
      QCOMPARE(qs(d.skipped[i].reason), QString(skipped[i].second));
    }

    // The distractors are mentions the baselines see: the nearest mention is the distractor
    // on the six lines that have one, the antecedent on the two that do not.
    const auto scores = scoreBaselines(d);
    QCOMPARE(scores[0].correct, std::int64_t(0));  // previous word: the verb or "by"
    QCOMPARE(scores[1].items, std::int64_t(8));
    QCOMPARE(scores[1].correct, std::int64_t(2));
  }

  // Every other kind of bad line, one stream each: the bad line is line 2 after a good one.
  void linReaderReportsEachBadLine_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("reason");
    QTest::newRow("one field")
        << "the king can love himself"
        << "has 1 tab-separated field(s); "
           "a line needs at least 3: sentence, reflexive index, antecedent indices";
    QTest::newRow("two reflexives") << "the king can love himself\t3 4\t0 1"
                                    << "the reflexive field '3 4' must hold exactly one index";
    QTest::newRow("no reflexive") << "the king can love himself\t\t0 1"
                                  << "the reflexive field '' must hold exactly one index";
    QTest::newRow("empty antecedent") << "the king can love himself\t4\t \t"
                                      << "the antecedent field is empty";
    QTest::newRow("antecedent not an integer") << "the king can love himself\t4\t0 1.5"
                                               << "antecedent index '1.5' is not an integer";
    QTest::newRow("negative index") << "the king can love himself\t4\t-1 1"
                                    << "antecedent index -1 is out of range: the sentence has 5 "
                                       "words (0 to 4)";
    QTest::newRow("reflexive in a distractor")
        << "the king near the man can love himself\t7\t0 1\t6 7"
        << "reflexive index 7 lies inside the distractor group (6 7)";
    QTest::newRow("word in two groups") << "the king near the man can love himself\t7\t0 1\t1 2"
                                        << "word 1 is listed twice in the index groups";
  }
  void linReaderReportsEachBadLine() {
    QFETCH(QString, line);
    QFETCH(QString, reason);
    std::istringstream in("our prince will love himself\t4\t0 1\t\n" + line.toStdString() + "\n");
    const CorefDataset d = readLinReflexives(in, "s.tsv");
    QCOMPARE(d.examples.size(), size_t(1));
    QCOMPARE(d.skipped.size(), size_t(1));
    QCOMPARE(qs(d.skipped[0].where), QString("s.tsv:2"));
    QCOMPARE(qs(d.skipped[0].reason), reason);
  }

  // Windows line ends, a last line without newline, and one field per distractor phrase read
  // the same as the release's one field.
  void linReaderAcceptsVariants() {
    std::istringstream in(
        "our prince will love himself\t4\t0 1\t\r\n"
        "my queen who can kick her girl would remember your lady by herself\t12\t0 1\t5 6\t9 10");
    const CorefDataset d = readLinReflexives(in, "v.tsv");
    QVERIFY(d.skipped.empty());
    QCOMPARE(d.examples.size(), size_t(2));
    QCOMPARE(qs(d.examples[0].words.back()), QString("himself"));
    QCOMPARE(mentionsText(d.examples[1]), QString("0-2:1:0 5-7:6:-1 9-11:10:-1 12-13:12:0"));
    QCOMPARE(qs(d.examples[1].source), QString("v.tsv:2"));
  }

  // No usable line, no line at all, no file: errors that name the file.
  void linReaderErrorsNameTheFile() {
    auto message = [](auto&& read) -> QString {
      try {
        read();
      } catch (const attnlab::DataError& e) {
        return QString::fromUtf8(e.what());
      }
      return "no error";
    };
    std::istringstream bad("the king\t9\t0\n\nthe queen\n");
    QCOMPARE(message([&] { readLinReflexives(bad, "bad.tsv"); }),
             QString("bad.tsv: holds no usable reflexive line: all 2 lines were skipped; the "
                     "first, bad.tsv:1: reflexive index 9 is out of range: the sentence has 2 "
                     "words (0 to 1)"));
    std::istringstream empty("\n \n");
    QCOMPARE(message([&] { readLinReflexives(empty, "empty.tsv"); }),
             QString("empty.tsv: holds no reflexive line"));
    const std::string missing = kFixtures + "no-such-refl.1";
    QCOMPARE(message([&] { readLinReflexives(missing); }), qs(missing + ": no such file"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(message([&] { readLinReflexives(dir.path().toStdString()); }),
             dir.path() + ": is a folder, not a reflexive data file");
  }
};

QTEST_APPLESS_MAIN(TestCorefData)
#include "test_coref_data.moc"
