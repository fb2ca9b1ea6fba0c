// The report readers against the writers: a hand-built report with every field set to a
// value of its own (NaNs, doubles that print with 17 digits, floats, empty and full
// optional parts) is written by the real writer, read back and compared field by field,
// doubles exactly; every kind of bad file is refused with the path and the JSON pointer of
// the field at fault.
#include "analysis/report/json_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_layout.h"
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "core/errors/error.h"
#include "tests/support/report_equality.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

using namespace attnlab;
using namespace attnlab::analysis;
namespace fs = std::filesystem;
using attnlab::tests::expectSameAnalysis;
using attnlab::tests::expectSameCoref;
using nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

/// A value no other field has, with all 17 significant digits in use.
double distinct(int i) {
  return 1.0 / 3.0 + 0.0123456789 * i;
}

DistributionSummary distribution(int seed, bool empty = false) {
  DistributionSummary d;
  d.count = empty ? 0 : 1000 + seed;
  d.resolution = std::log(64.0) / 4096;
  d.clamped = empty ? 0 : seed % 3;
  d.histogramEdges = {0.0, 0.1 * seed, 0.2 * seed + 1e-17, std::nextafter(1.0, 2.0)};
  d.histogramCounts = {std::int64_t{seed}, 7, std::int64_t{1} << 40};
  if (empty) {
    d.mean = d.min = d.q1 = d.median = d.q3 = d.max = kNaN;  // as StreamingDistribution
    return d;
  }
  d.mean = distinct(seed);
  d.min = distinct(seed) - 1.0;
  d.q1 = distinct(seed) - 0.25;
  d.median = distinct(seed) + 1e-300;
  d.q3 = std::nextafter(distinct(seed) + 0.25, 10.0);
  d.max = 4.1588830833596715;  // ln 64
  d.kdeX = {d.min, distinct(seed), d.max};
  d.kdeDensity = {1e-310, 0.5 + seed, 5e-324};  // subnormals too
  d.kdeBandwidth = 0.0625 * seed + 1e-9;
  return d;
}

/// 3 layers x 2 heads, every field set: an empty head (NaN medians, colour none), NaN
/// guidance figures, a pairwise matrix, two variant series, snapshots and checkpoints
/// over training, skipped lines, JSD in nats with Clark smoothing.
AnalysisReport handBuiltAnalysis() {
  AnalysisReport r;
  r.source = {"runs/x y", "x \"quoted\" ü", "runs/x y/checkpoints/step-0000040.h5", 40};
  r.availableSteps = {20, 40, 1'000'000'000'000};
  r.evaluationKind = "text";
  r.evaluationDescription = "text file notes.txt, 7 lines (1 cut to 32 tokens)";
  r.evaluationSequences = 7;
  r.maxLength = 32;
  r.configToml = "[run]\nname = \"x\"\n\n[model]\nlayers = 3\n";
  r.skipped = {{"notes.txt:3", "not valid UTF-8 (byte 4)"}, {"notes.txt:9", "tab\tand \\ slash"}};
  r.seconds = 12.345678901234567;
  auto& s = r.statistics;
  s.layers = 3;
  s.heads = 2;
  s.jsdBase = LogBase::Nats;
  s.clarkSmoothing = true;
  s.sequences = 7;
  s.rows = 123456789012;
  s.skippedRows = 17;
  for (int i = 0; i < 6; ++i) s.entropy.push_back(distribution(i + 1, i == 3));
  s.entropyColours = {ColourClass::Blue, ColourClass::Yellow, ColourClass::Red,
                      ColourClass::None, ColourClass::Yellow, ColourClass::Blue};
  s.headOrder = {{1, 0}, {0, 1}, {1, 0}};
  for (int i = 0; i < 4; ++i) s.adjacentJsd.push_back(distribution(10 + i, i == 1));
  s.jsdColours = {ColourClass::Red, ColourClass::None, ColourClass::Blue, ColourClass::Yellow};
  for (int i = 0; i < 36; ++i) s.pairwiseJsd.push_back(i % 7 == 0 ? 0.0 : distinct(100 + i));
  s.pairwiseSequencesUsed = 5;
  for (int i = 0; i < 6; ++i) {
    HeadSummary h;
    h.first = distinct(200 + i);
    h.separator = distinct(210 + i);
    h.period = i == 2 ? kNaN : distinct(220 + i);
    h.previous = distinct(230 + i);
    h.next = distinct(240 + i);
    h.self = distinct(250 + i);
    s.headSummaries.push_back(h);
  }
  for (int i = 0; i < 30; ++i) {
    s.guidanceDistance.push_back(i % 5 == 4 ? kNaN : distinct(300 + i));
    s.guidanceMse.push_back(i % 5 == 4 ? kNaN : distinct(400 + i) / 1000);
  }
  LoggedSeries temperature;
  temperature.name = "temperature/q";
  temperature.description = "learned temperature of q";
  temperature.unit = "temperature";
  temperature.steps = {0, 4, 8};
  temperature.innerShape = {3, 2};
  for (int i = 0; i < 18; ++i)
    temperature.values.push_back(1.0f + 1.0f / static_cast<float>(3 + i));
  temperature.values[5] = std::numeric_limits<float>::quiet_NaN();
  temperature.values[6] = std::numeric_limits<float>::denorm_min();
  LoggedSeries mask;
  mask.name = "asa/mask_proportion";
  mask.description = "masking proportion";
  mask.unit = "fraction";
  mask.steps = {1'000'000};
  mask.innerShape = {3};
  mask.values = {0.0f, 0.125f, 1.0f};
  r.variantSeries = {temperature, mask};
  for (int k = 0; k < 3; ++k) {
    TrainingStatisticsPoint p;
    p.source = k < 2 ? "snapshot" : "checkpoint";
    p.step = k * 4;
    p.sequences = 8 + k;
    for (int i = 0; i < 6; ++i)
      p.medianEntropy.push_back(i == 3 ? kNaN : distinct(500 + 10 * k + i));
    for (int i = 0; i < 4; ++i) p.medianAdjacentJsd.push_back(distinct(600 + 10 * k + i));
    p.headSummaries = s.headSummaries;
    p.headSummaries[0].first = distinct(700 + k);
    p.guidanceDistance = s.guidanceDistance;
    p.guidanceDistance[1] = distinct(800 + k);
    r.overTraining.push_back(p);
  }
  return r;
}

CorefProbeReport handBuiltCoref(coref::ArgmaxScope scope) {
  CorefProbeReport r;
  r.source = {"runs/x", "x", "runs/x/checkpoints/step-0000040.h5", 40};
  r.dataset = "conll:/data/dev.conll";
  r.datasetDescription = "CoNLL-2012 file /data/dev.conll, 3 windows";
  r.examples = 3;
  r.scope = scope == coref::ArgmaxScope::AllWords
                ? "all words, <s> and </s> included (the official synthetic scorer)"
                : "all words but the mention's head word, <s> and </s>";
  r.skipped = {{"/data/dev.conll:7", "line of 3 columns, expected at least 12"}};
  r.seconds = 0.1 + 0.2;
  auto& p = r.result;
  p.layers = 2;
  p.heads = 3;
  p.scope = scope;
  p.examples = 3;
  p.items = 7;
  p.correct = {1, 2, 3, 4, 5, 6};
  for (const auto c : p.correct) p.accuracy.push_back(static_cast<double>(c) / 7.0);
  p.bestLayer = 1;
  p.bestHead = 2;
  p.bestAccuracy = 6.0 / 7.0;
  p.meanAccuracy = 21.0 / 42.0 + 1e-16;
  p.baselines = {{"previous_word", "the word before", 0, 7, 0.0},
                 {"rule_sieve", "Lee et al. sieves", 5, 7, 5.0 / 7.0}};
  return r;
}

}  // namespace

class TestReportReaders : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // Written by the report writer the CLI uses, read back: every field, doubles bit for bit.
  // Where reports live (analysis/report/report_layout.h), against the folder names the
  // docs give: <run>/analysis/step-S/analysis.json, <run>/analysis/coref-step-S/coref.json.
  void reportLayoutFindsTheFoldersByStep() {
    const fs::path run = fs::path(m_dir.path().toStdString()) / "layout-run";
    const auto put = [&](const std::string& folder, const std::string& file) {
      fs::create_directories(run / "analysis" / folder);
      std::ofstream(run / "analysis" / folder / file) << "{}";
    };
    put("step-20", "analysis.json");
    put("step-5", "analysis.json");
    put("my-report", "analysis.json");  // a chosen --out under analysis/
    put("coref-step-5", "coref.json");
    put("step-x", "analysis.json");                       // not a step: named otherwise
    fs::create_directories(run / "analysis" / "step-7");  // no report in it
    QCOMPARE(reportFolder(run, ReportKind::Attention, 2000), run / "analysis" / "step-2000");
    QCOMPARE(reportFolder(run, ReportKind::Coref, 5), run / "analysis" / "coref-step-5");
    QCOMPARE(reportSteps(run, ReportKind::Attention), (std::vector<std::int64_t>{5, 20}));
    QCOMPARE(reportSteps(run, ReportKind::Coref), (std::vector<std::int64_t>{5}));
    const auto files = reportFiles(run, ReportKind::Attention);
    QCOMPARE(files.size(), std::size_t{4});
    QCOMPARE(files[0].file, run / "analysis" / "my-report" / "analysis.json");
    QVERIFY(!files[0].step && !files[1].step);
    QCOMPARE(files[1].file, run / "analysis" / "step-x" / "analysis.json");
    QCOMPARE(files[2].file, run / "analysis" / "step-5" / "analysis.json");
    QCOMPARE(files[3].step, std::optional<std::int64_t>(20));
    QVERIFY(reportFiles(run / "missing", ReportKind::Coref).empty());
  }

  void analysisRoundTripsEveryField() {
    const auto written = handBuiltAnalysis();
    const fs::path out = dir() / "analysis";
    writeAnalysisReport(written, out);
    const auto read = readAnalysisJson(out / "analysis.json");
    expectSameAnalysis(written, read);
    // And the read report writes the same file again: nothing was lost on the way.
    QCOMPARE(analysisJson(read), readText(out / "analysis.json"));
  }

  // The summaries beyond the weights: every number back exactly (NaN as null), the lens's
  // output row and seed; a report without them (written before they existed, or with every
  // --no-* switch) reads as none; an entry out of order is named by its pointer.
  void beyondWeightsSummariesRoundTrip() {
    auto written = handBuiltAnalysis();
    const int L = written.statistics.layers, H = written.statistics.heads;
    RolloutSummary rollout{L, 120, {}, {}, {}};
    NormSummary norms{L, H, 4800, {}, {}, {}};
    for (int l = 0; l < L; ++l) {
      rollout.diagonal.push_back(0.5 / (l + 1));
      rollout.spread.push_back(1.25 * (l + 1) + 0.1);
      rollout.entropy.push_back(0.3 * l + 1.0 / 3);
      norms.layerCorrelation.push_back(0.9 - 0.1 * l);
      for (int h = 0; h < H; ++h) {
        norms.headCorrelation.push_back(h == 1 ? std::nan("") : 0.7 + 0.01 * h);
        norms.meanValueNorm.push_back(2.5 + l + h / 7.0);
      }
    }
    LensSummary lens;
    lens.layers = L;
    lens.outputRow = true;
    lens.seed = 18446744073709551557ULL;  // beyond int64: read as unsigned
    lens.positions = 77;
    for (int r = 0; r <= L; ++r)
      lens.rows.push_back({0.1 * r, 100.0 / (r + 1), 3.0 - r, 0.2 / (r + 1)});
    lens.halfAccuracyRow = halfAccuracyRow(lens.rows);
    written.beyond = {rollout, norms, lens};
    const fs::path file = dir() / "beyond.json";
    writeText(file, analysisJson(written));
    const auto read = readAnalysisJson(file);
    QVERIFY(read.beyond.rollout && read.beyond.norms && read.beyond.lens);
    QCOMPARE(read.beyond.rollout->spread, rollout.spread);
    QCOMPARE(read.beyond.norms->meanValueNorm, norms.meanValueNorm);
    QVERIFY(std::isnan(read.beyond.norms->headCorrelation[1]));
    QCOMPARE(read.beyond.lens->seed, lens.seed);
    QCOMPARE(read.beyond.lens->rows.size(), std::size_t(L + 1));
    QCOMPARE(read.beyond.lens->halfAccuracyRow, lens.halfAccuracyRow);
    QCOMPARE(analysisJson(read), readText(file));

    auto without = handBuiltAnalysis();
    writeText(file, analysisJson(without));
    const auto none = readAnalysisJson(file);
    QVERIFY(!none.beyond.rollout && !none.beyond.norms && !none.beyond.lens);

    auto doc = nlohmann::json::parse(analysisJson(written));
    std::swap(doc["beyond_weights"]["rollout"]["per_layer"][0],
              doc["beyond_weights"]["rollout"]["per_layer"][1]);
    writeText(file, doc.dump());
    try {
      readAnalysisJson(file);
      QFAIL("a reordered rollout table was read");
    } catch (const attnlab::DataError& e) {
      QVERIFY2(std::string(e.what()).find("/beyond_weights/rollout/per_layer/0/layer") !=
                   std::string::npos,
               e.what());
    }
  }

  // Bits without smoothing and no pairwise matrix, no series and no points over training.
  void analysisRoundTripsTheOtherChoices() {
    auto written = handBuiltAnalysis();
    written.statistics.jsdBase = LogBase::Bits;
    written.statistics.clarkSmoothing = false;
    written.statistics.pairwiseJsd.clear();
    written.statistics.pairwiseSequencesUsed = 0;
    written.variantSeries.clear();
    written.overTraining.clear();
    written.skipped.clear();
    const fs::path file = dir() / "other.json";
    writeText(file, analysisJson(written));
    expectSameAnalysis(written, readAnalysisJson(file));
  }

  void corefRoundTripsEveryField() {
    for (const auto scope :
         {coref::ArgmaxScope::AllWords, coref::ArgmaxScope::ExcludeSelfAndSpecials}) {
      const auto written = handBuiltCoref(scope);
      const fs::path out = dir() / "coref";
      writeCorefReport(written, out);
      const auto read = readCorefJson(out / "coref.json");
      expectSameCoref(written, read);
      QCOMPARE(corefJson(read), readText(out / "coref.json"));
    }
  }

  // Nothing scored: best_head is null and reads back as -1, -1.
  void corefWithNothingScored() {
    auto written = handBuiltCoref(coref::ArgmaxScope::AllWords);
    written.result.items = 0;
    written.result.correct.assign(6, 0);
    written.result.accuracy.assign(6, 0.0);
    written.result.bestLayer = written.result.bestHead = -1;
    written.result.bestAccuracy = 0.0;
    written.result.baselines.clear();
    const fs::path file = dir() / "empty-coref.json";
    writeText(file, corefJson(written));
    expectSameCoref(written, readCorefJson(file));
  }

  // Fields added to format version 1 after it was published are optional: a distribution
  // without `clamped` reads 0, a coref report without `scoring.argmax` takes the scope from
  // its description.
  void olderVersionOneFilesRead() {
    auto doc = json::parse(analysisJson(handBuiltAnalysis()));
    for (auto& head : doc["per_head"]) {
      head["entropy"].erase("clamped");
      if (head.contains("jsd_to_layer_below")) head["jsd_to_layer_below"].erase("clamped");
    }
    const fs::path file = dir() / "old-analysis.json";
    writeText(file, doc.dump(1));
    const auto read = readAnalysisJson(file);
    for (const auto& d : read.statistics.entropy) QCOMPARE(d.clamped, std::int64_t{0});

    for (const auto scope :
         {coref::ArgmaxScope::AllWords, coref::ArgmaxScope::ExcludeSelfAndSpecials}) {
      auto coref = json::parse(corefJson(handBuiltCoref(scope)));
      coref["scoring"].erase("argmax");
      const fs::path old = dir() / "old-coref.json";
      writeText(old, coref.dump(1));
      QVERIFY(readCorefJson(old).result.scope == scope);
    }
  }

  // Each bad analysis.json: the message is the path, the JSON pointer and what is wrong.
  void badAnalysisFilesNameThePathAndTheField_data() {
    QTest::addColumn<QString>("content");  // empty: the good file edited by `edit`
    QTest::addColumn<int>("edit");
    QTest::addColumn<QString>("expected");  // the message after "<path>: "
    const auto add = [](const char* name, const char* content, int edit, const char* expected) {
      QTest::newRow(name) << QString(content) << edit << QString(expected);
    };
    add("not JSON", "{\"format\": \"attnlab-analysis\",", 0,
        "not JSON: parse error at line 1, column 31: ");
    add("empty file", "", 0, "not JSON: parse error at line 1, column 1: ");
    add("top level not an object", "[1, 2]", 0,
        "top level: expected an object with \"format\": \"attnlab-analysis\", found an array");
    add("no format", "{\"layers\": 2}", 0,
        "/format: missing: not an AttnLab report (expected \"attnlab-analysis\")");
    add("a coref report", "", 1,
        "/format: the file is a coreference probe report (coref.json), not an attention "
        "analysis report (analysis.json)");
    add("another format", "{\"format\": \"something-else\", \"format_version\": 1}", 0,
        "/format: the file is \"something-else\", not an attention analysis report "
        "(analysis.json)");
    add("newer version", "", 2,
        "/format_version: format_version 2 is newer than this AttnLab reads (format_version "
        "1); open it with a newer AttnLab");
    add("version as text", "", 3, "/format_version: expected an integer, found a string (\"1\")");
    add("version 0", "", 4, "/format_version: format_version 0 does not exist (the first is 1)");
    add("missing median", "", 5, "/per_head/1/entropy/median: missing");
    add("median as text", "", 6,
        "/per_head/3/entropy/median: expected a number or null, found a string (\"0.5\")");
    add("step as float", "", 7, "/run/step: expected an integer, found a number (40.5)");
    add("heads too few", "", 8,
        "/per_head: expected 4 entries (layers x heads, layer-major), found 3");
    add("heads out of order", "", 9,
        "/per_head/1/head: expected head 1 (entries are in layer-major order), found 0");
    add("unknown colour", "", 10,
        "/per_head/0/entropy/colour: unknown colour class \"green\" (blue, yellow, red or none)");
    add("series values short", "", 11,
        "/variant_series/0/values: expected 4 entries (steps times the inner shape), found 3");
    add("missing JSD below", "", 12, "/per_head/2/jsd_to_layer_below: missing");
    add("unknown JSD unit", "", 13,
        "/units/jsd: expected \"bits\" or \"nats\", found \"shannons\"");
    add("layers zero", "", 14, "/layers: expected an integer from 1 to 4096, found 0");
    add("pairwise not square", "", 15,
        "/pairwise_jsd/values: expected 16 entries (a square matrix of layers x heads, or "
        "none), found 3");
    add("over training short", "", 16,
        "/over_training/0/guidance_total_variation: expected 20 entries (one per head and "
        "guidance pattern), found 19");
    add("head order out of range", "", 17,
        "/head_order_by_median_entropy/1/0: expected an integer from 0 to 1, found 2");
    add("histogram edges", "", 18,
        "/per_head/0/entropy/histogram/edges: expected 4 entries (one more edge than counts), "
        "found 3");
    add("per_head not an array", "", 19, "/per_head: expected an array, found an object");
    add("skipped entry", "", 20, "/evaluation/skipped/0/reason: missing");
  }

  void badAnalysisFilesNameThePathAndTheField() {
    QFETCH(QString, content);
    QFETCH(int, edit);
    QFETCH(QString, expected);
    const fs::path file = dir() / "bad-analysis.json";
    if (edit == 0) {
      writeText(file, content.toStdString());
    } else {
      writeText(file, editedAnalysis(edit));
    }
    try {
      readAnalysisJson(file);
      QFAIL("no error");
    } catch (const DataError& e) {
      QCOMPARE(QString::fromStdString(e.where()), QString::fromStdString(file.string()));
      const QString message = e.what();
      const QString prefix = QString::fromStdString(file.string()) + ": ";
      if (expected.startsWith("not JSON")) {
        // The parser's own words after the position may change with nlohmann's version.
        QVERIFY2(message.startsWith(prefix + expected), qPrintable(message));
      } else {
        QCOMPARE(message, prefix + expected);
      }
    }
  }

  void badCorefFilesNameThePathAndTheField_data() {
    QTest::addColumn<int>("edit");
    QTest::addColumn<QString>("expected");
    QTest::newRow("an analysis report")
        << 1
        << "/format: the file is an attention analysis report (analysis.json), not a "
           "coreference probe report (coref.json)";
    QTest::newRow("newer version")
        << 2
        << "/format_version: format_version 3 is newer than this AttnLab reads (format_version "
           "1); open it with a newer AttnLab";
    QTest::newRow("best head out of range")
        << 3 << "/best_head/layer: expected an integer from 0 to 1, found 2";
    QTest::newRow("missing correct") << 4 << "/correct: missing";
    QTest::newRow("accuracy short")
        << 5 << "/accuracy/values: expected 6 entries (layers x heads, layer-major), found 5";
    QTest::newRow("unknown argmax")
        << 6 << "/scoring/argmax: expected \"all\" or \"exclude-self-special\", found \"some\"";
    QTest::newRow("baseline items as text")
        << 7 << "/baselines/1/items: expected an integer, found a string (\"7\")";
    QTest::newRow("skipped count")
        << 8 << "/dataset/skipped: expected 2 entries (skipped_count), found 1";
  }

  void badCorefFilesNameThePathAndTheField() {
    QFETCH(int, edit);
    QFETCH(QString, expected);
    auto doc = json::parse(corefJson(handBuiltCoref(coref::ArgmaxScope::AllWords)));
    switch (edit) {
      case 1:
        doc = json::parse(analysisJson(handBuiltAnalysis()));
        break;
      case 2:
        doc["format_version"] = 3;
        break;
      case 3:
        doc["best_head"]["layer"] = 2;
        break;
      case 4:
        doc.erase("correct");
        break;
      case 5:
        doc["accuracy"]["values"].erase(5);
        break;
      case 6:
        doc["scoring"]["argmax"] = "some";
        break;
      case 7:
        doc["baselines"][1]["items"] = "7";
        break;
      case 8:
        doc["dataset"]["skipped_count"] = 2;
        break;
      default:
        QFAIL("unknown edit");
    }
    const fs::path file = dir() / "bad-coref.json";
    writeText(file, doc.dump(1));
    try {
      readCorefJson(file);
      QFAIL("no error");
    } catch (const DataError& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(file.string()) + ": " + expected);
    }
  }

  void missingFileAndFolder() {
    const fs::path missing = dir() / "nowhere" / "analysis.json";
    try {
      readAnalysisJson(missing);
      QFAIL("no error");
    } catch (const DataError& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(missing.string()) + ": no such file");
    }
    try {
      readCorefJson(dir());
      QFAIL("no error");
    } catch (const DataError& e) {
      QVERIFY2(
          QString(e.what()).startsWith(QString::fromStdString(dir().string()) + ": is a folder"),
          e.what());
    }
  }

 private:
  fs::path dir() const { return fs::path(m_dir.path().toStdString()); }

  /// The good analysis.json of a 2 x 2 model with one edit applied (see the _data rows).
  static std::string editedAnalysis(int edit) {
    auto r = handBuiltAnalysis();
    // 2 layers x 2 heads keeps the expected sizes in the messages small.
    auto& s = r.statistics;
    s.layers = 2;
    s.entropy.resize(4);
    s.entropyColours.resize(4);
    s.headOrder.resize(2);
    s.adjacentJsd.resize(2);
    s.jsdColours.resize(2);
    s.pairwiseJsd.assign(16, 0.25);
    s.headSummaries.resize(4);
    s.guidanceDistance.resize(20);
    s.guidanceMse.resize(20);
    r.variantSeries[0].innerShape = {2};
    r.variantSeries[0].steps = {0, 4};
    r.variantSeries[0].values = {1.0f, 1.5f, 2.0f, 2.5f};
    for (auto& p : r.overTraining) {
      p.medianEntropy.resize(4);
      p.medianAdjacentJsd.resize(2);
      p.headSummaries.resize(4);
      p.guidanceDistance.resize(20);
    }
    auto doc = json::parse(analysisJson(r));
    switch (edit) {
      case 1:
        doc = json::parse(corefJson(handBuiltCoref(coref::ArgmaxScope::AllWords)));
        break;
      case 2:
        doc["format_version"] = 2;
        break;
      case 3:
        doc["format_version"] = "1";
        break;
      case 4:
        doc["format_version"] = 0;
        break;
      case 5:
        doc["per_head"][1]["entropy"].erase("median");
        break;
      case 6:
        doc["per_head"][3]["entropy"]["median"] = "0.5";
        break;
      case 7:
        doc["run"]["step"] = 40.5;
        break;
      case 8:
        doc["per_head"].erase(3);
        break;
      case 9:
        doc["per_head"][1]["head"] = 0;
        break;
      case 10:
        doc["per_head"][0]["entropy"]["colour"] = "green";
        break;
      case 11:
        doc["variant_series"][0]["values"].erase(3);
        break;
      case 12:
        doc["per_head"][2].erase("jsd_to_layer_below");
        break;
      case 13:
        doc["units"]["jsd"] = "shannons";
        break;
      case 14:
        doc["layers"] = 0;
        break;
      case 15:
        doc["pairwise_jsd"]["values"] = {0.1, 0.2, 0.3};
        break;
      case 16:
        doc["over_training"][0]["guidance_total_variation"].erase(19);
        break;
      case 17:
        doc["head_order_by_median_entropy"][1][0] = 2;
        break;
      case 18:
        doc["per_head"][0]["entropy"]["histogram"]["edges"].erase(0);
        break;
      case 19:
        doc["per_head"] = json::object();
        break;
      case 20:
        doc["evaluation"]["skipped"][0].erase("reason");
        break;
      default:
        break;
    }
    return doc.dump(1);
  }

  QTemporaryDir m_dir;
};

QTEST_APPLESS_MAIN(TestReportReaders)
#include "test_report_readers.moc"
