// The probe's kept examples (the Probe tab's drill-down): AntecedentProbe::record() on a
// hand-built example whose picks were worked out by hand, the keeper's limits, the
// coref_examples.json writer and reader round trip (floats bit for bit) through the report
// writer the CLI and the app use, and bad files refused with the path and the JSON pointer.
#include "analysis/coref/antecedent_probe.h"
#include "analysis/coref/probe_examples.h"
#include "analysis/report/json_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_readers.h"
#include "analysis/runs/coref_probe_report.h"
#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

using namespace attnlab;
using namespace attnlab::analysis;
using namespace attnlab::analysis::coref;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// "our prince will love himself", one piece per word: T = 7 pieces (<s> 5 words </s>), the
/// layout words are the pieces. Items: the reflexive (word 4, layout 5), correct = the
/// determiner and the noun (layout 1 and 2).
CorefExample prince() {
  CorefExample ex;
  ex.source = "synthetic:0";
  ex.words = {"our", "prince", "will", "love", "himself"};
  ex.mentions = {Mention{0, 2, 1, 0}, Mention{4, 5, 4, 0}};
  ex.items = {ProbeItem{1, 4, {0, 1}}};
  return ex;
}

/// [L*H, T, T] attention, 1 layer x 3 heads; the reflexive's row (piece 5) of head 0 peaks
/// on the noun (2: right), head 1 on "will" (3: wrong), head 2 on the determiner (1: right)
/// with values that do not print short as doubles (0.1f, 1/3f).
std::vector<float> princeAttention() {
  const int T = 7;
  std::vector<float> a(3 * T * T, 1.0f / 7.0f);
  auto row = [&](int head, std::vector<float> values) {
    std::copy(values.begin(), values.end(), a.begin() + (head * T + 5) * T);
  };
  row(0, {0.05f, 0.1f, 0.6f, 0.1f, 0.05f, 0.05f, 0.05f});
  row(1, {0.0f, 0.1f, 0.2f, 0.4f, 1.0f / 3.0f, 0.0f, 1e-8f});
  row(2, {0.2f, 0.3f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f});
  return a;
}

CorefProbeReport reportWith(ProbeExamples kept) {
  CorefProbeReport r;
  r.source = {"runs/x", "x", "runs/x/checkpoints/step-0000040.h5", 40};
  r.dataset = "synthetic";
  r.datasetDescription = "synthetic reflexives, 1 sentence";
  r.examples = 1;
  r.scope = "all words, <s> and </s> included (the official synthetic scorer)";
  auto& p = r.result;
  p.layers = 1;
  p.heads = 3;
  p.examples = 1;
  p.items = 1;
  p.correct = {1, 0, 1};
  p.accuracy = {1.0, 0.0, 1.0};
  p.bestLayer = 0;
  p.bestHead = 0;
  p.bestAccuracy = 1.0;
  p.meanAccuracy = 2.0 / 3.0;
  r.kept = std::move(kept);
  return r;
}

}  // namespace

class TestCorefExamples : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path dir() const { return fs::path(m_dir.path().toStdString()); }

  /// Probes prince() into `out`, what the probe keeps of it (void: QCOMPARE returns).
  void probePrince(ProbeExamples& out) {
    const auto ex = prince();
    const WordLayout layout = layoutWords(std::vector<int>{1, 1, 1, 1, 1});
    const auto attention = princeAttention();
    AntecedentProbe probe(1, 3, ArgmaxScope::AllWords);
    probe.addExample(ex, layout, attention.data(), 7);
    ExampleKeeper keeper(1, 3, ArgmaxScope::AllWords);
    keeper.offer(probe.record(ex, layout, attention.data(), 7));
    // The drill-down's right/wrong is the score's: the same heads count as correct.
    const auto result = probe.result();
    const auto& item = keeper.kept().examples.at(0).items.at(0);
    for (int h = 0; h < 3; ++h) QCOMPARE(item.right(h) ? 1 : 0, int(result.correct[h]));
    out = keeper.take();
  }

  /// Expects DataError naming `path`, with `pointer` at the start of its reason.
  void expectRefused(const fs::path& path, const std::string& pointer) {
    try {
      readCorefExamplesJson(path);
      QFAIL("no DataError");
    } catch (const DataError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find(path.string()) != std::string::npos, what.c_str());
      QVERIFY2(what.find(pointer) != std::string::npos, what.c_str());
    }
  }

 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // Words with the specials, the query and correct words as layout words, each head's pick
  // (worked out by hand from princeAttention) and its row as the attention matrix holds it.
  void recordKeepsWordsPicksAndRows() {
    ProbeExamples kept;
    probePrince(kept);
    QCOMPARE(kept.probed, std::int64_t(1));
    QVERIFY(kept.complete());
    const auto& e = kept.examples.at(0);
    QCOMPARE(e.source, std::string("synthetic:0"));
    QCOMPARE(e.words,
             (std::vector<std::string>{"<s>", "our", "prince", "will", "love", "himself", "</s>"}));
    const auto& item = e.items.at(0);
    QCOMPARE(item.queryWord, 5);
    QCOMPARE(item.correctWords, (std::vector<int>{1, 2}));
    QCOMPARE(item.picked, (std::vector<int>{2, 3, 1}));  // noun, "will", determiner
    QCOMPARE(item.right(0), true);
    QCOMPARE(item.right(1), false);
    QCOMPARE(item.right(2), true);
    const auto attention = princeAttention();
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 7; ++w)
        QVERIFY(sameBits(item.row(h, 7)[w], attention[(h * 7 + 5) * 7 + w]));
  }

  // Through writeCorefReport (what attnlab-cli probe coref and the app call): the file is
  // beside coref.json and reads back field by field, floats bit for bit.
  void roundTripsThroughTheReportWriter() {
    ProbeExamples kept;
    probePrince(kept);
    // A second example, with odd floats and two items, one picking nothing (-1).
    KeptExample two;
    two.source = "lin.tsv:3";
    two.words = {"<s>", "a", "b", "</s>"};
    KeptItem i1;
    i1.queryWord = 2;
    i1.correctWords = {1};
    i1.picked = {1, 2, -1};
    i1.rows = {std::numeric_limits<float>::denorm_min(),
               0.1f,
               1.0f / 3.0f,
               0.0f,
               1.17549435e-38f,
               3.4028235e38f,
               2.5f,
               0.3f,
               0.0f,
               0.0f,
               0.0f,
               0.0f};
    KeptItem i2 = i1;
    i2.queryWord = 1;
    i2.correctWords = {};
    two.items = {i1, i2};
    kept.examples.push_back(two);
    kept.probed = 5;  // three more probed and not kept

    const fs::path out = dir() / "roundtrip";
    const auto files = writeCorefReport(reportWith(kept), out);
    QVERIFY(std::find(files.begin(), files.end(), out / "coref_examples.json") != files.end());
    const auto read = readCorefExamplesJson(out / "coref_examples.json");
    QCOMPARE(read.layers, 1);
    QCOMPARE(read.heads, 3);
    QCOMPARE(read.scope, ArgmaxScope::AllWords);
    QCOMPARE(read.probed, std::int64_t(5));
    QVERIFY(!read.complete());
    QCOMPARE(read.examples.size(), kept.examples.size());
    for (std::size_t e = 0; e < kept.examples.size(); ++e) {
      const auto& a = kept.examples[e];
      const auto& b = read.examples[e];
      QCOMPARE(b.source, a.source);
      QCOMPARE(b.words, a.words);
      QCOMPARE(b.items.size(), a.items.size());
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        QCOMPARE(b.items[i].queryWord, a.items[i].queryWord);
        QCOMPARE(b.items[i].correctWords, a.items[i].correctWords);
        QCOMPARE(b.items[i].picked, a.items[i].picked);
        QCOMPARE(b.items[i].rows.size(), a.items[i].rows.size());
        for (std::size_t v = 0; v < a.items[i].rows.size(); ++v)
          QVERIFY2(sameBits(b.items[i].rows[v], a.items[i].rows[v]),
                   qPrintable(QString::number(v)));
      }
    }
    // The file says what it keeps and how it is limited.
    const json doc = json::parse(readText(out / "coref_examples.json"));
    QCOMPARE(doc["format"].get<std::string>(), std::string(kCorefExamplesFormat));
    QCOMPARE(doc["limit"]["examples"].get<int>(), ProbeExamples::kMaxExamples);
    QCOMPARE(doc["kept"].get<int>(), 2);
    QCOMPARE(doc["complete"].get<bool>(), false);
    // Floats are written short: 0.1f as 0.1, not 0.10000000149011612.
    QCOMPARE(doc["examples"][1]["items"][0]["rows"][0][1].dump(), std::string("0.1"));

    // A report without kept examples (read back from coref.json alone) writes none, and the
    // stale one goes with the other coref files an earlier report left.
    writeCorefReport(reportWith({}), out);
    QVERIFY(!fs::exists(out / "coref_examples.json"));
    QVERIFY(fs::exists(out / "coref.json"));
  }

  // The first 500 examples, and no later one once the values would pass the limit.
  void keeperKeepsTheFirstExamplesWithinTheLimits() {
    ExampleKeeper keeper(1, 1, ArgmaxScope::AllWords);
    KeptExample small;
    small.words = {"<s>", "x", "</s>"};
    small.items = {KeptItem{1, {1}, {0}, {0.5f, 0.25f, 0.25f}}};
    for (int i = 0; i < ProbeExamples::kMaxExamples; ++i) {
      QVERIFY(keeper.wantsMore());
      small.source = "s:" + std::to_string(i);
      QVERIFY(keeper.offer(small));
    }
    QVERIFY(!keeper.wantsMore());
    QVERIFY(!keeper.offer(small));
    keeper.skip();
    QCOMPARE(keeper.kept().examples.size(), std::size_t(ProbeExamples::kMaxExamples));
    QCOMPARE(keeper.kept().probed, std::int64_t(ProbeExamples::kMaxExamples + 2));
    QCOMPARE(keeper.kept().examples.back().source, std::string("s:499"));

    ExampleKeeper values(1, 1, ArgmaxScope::AllWords);
    QVERIFY(values.offer(small));
    KeptExample huge = small;
    huge.items[0].rows.assign(static_cast<std::size_t>(ProbeExamples::kMaxValues), 0.0f);
    QVERIFY(!values.offer(huge));
    QVERIFY(!values.wantsMore());
    QVERIFY(!values.offer(small));  // a later small one is not kept: the kept stay a prefix
    QCOMPARE(values.kept().examples.size(), std::size_t(1));
    QCOMPARE(values.kept().probed, std::int64_t(3));
  }

  // Bad files: named by path, the field at fault by its JSON pointer.
  void badFilesAreRefusedWithTheirField() {
    const fs::path out = dir() / "bad";
    ProbeExamples kept;
    probePrince(kept);
    writeCorefReport(reportWith(kept), out);
    const json good = json::parse(readText(out / "coref_examples.json"));
    const auto variant = [&](const char* name, const std::function<void(json&)>& edit) {
      json doc = good;
      edit(doc);
      const fs::path p = out / name;
      writeText(p, doc.dump());
      return p;
    };
    expectRefused(out / "missing.json", "no such file");
    expectRefused(out / "coref.json", "/format: the file is a coreference probe report");
    expectRefused(variant("newer.json", [](json& d) { d["format_version"] = 2; }),
                  "/format_version: format_version 2 is newer");
    expectRefused(
        variant("picked.json", [](json& d) { d["examples"][0]["items"][0]["picked"][1] = 7; }),
        "/examples/0/items/0/picked/1: expected an integer from -1 to 6");
    expectRefused(
        variant("query.json", [](json& d) { d["examples"][0]["items"][0]["query"] = -1; }),
        "/examples/0/items/0/query: expected an integer from 0 to 6");
    expectRefused(
        variant("row.json", [](json& d) { d["examples"][0]["items"][0]["rows"][2].erase(0); }),
        "/examples/0/items/0/rows/2: expected 7 entries (one per word), found 6");
    expectRefused(
        variant("heads.json", [](json& d) { d["examples"][0]["items"][0]["picked"].erase(0); }),
        "/examples/0/items/0/picked: expected 3 entries");
    expectRefused(variant("kept.json", [](json& d) { d["kept"] = 2; }),
                  "/examples: expected 2 entries (kept), found 1");
    expectRefused(variant("probed.json", [](json& d) { d["probed"] = 0; }),
                  "/kept: more examples kept than probed");
  }
};

QTEST_MAIN(TestCorefExamples)
#include "test_coref_examples.moc"
