// The report writers on hand-built results with known numbers: every format names the run,
// step, data and units; CSV rows carry the exact values; undefined values (NaN, nothing
// scored) read as such rather than as zeros or out-of-range indices.
#include "analysis/report/csv_report.h"
#include "analysis/report/json_report.h"
#include "analysis/report/markdown_report.h"
#include "analysis/report/report_files.h"
#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"
#include "core/data/data_files.h"
#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace attnlab::analysis;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

DistributionSummary summary(double median, std::int64_t count = 10) {
  DistributionSummary d;
  d.count = count;
  d.mean = d.median = median;
  d.min = median - 1;
  d.q1 = median - 0.5;
  d.q3 = median + 0.5;
  d.max = median + 1;
  d.resolution = 0.001;
  return d;
}

/// 2 layers x 2 heads; head (0, 1) had no usable row.
AnalysisReport handBuiltAnalysis() {
  AnalysisReport r;
  r.source = {"runs/x", "x", "runs/x/checkpoints/step-0000040.h5", 40};
  r.availableSteps = {20, 40};
  r.evaluationKind = "validation";
  r.evaluationDescription = "validation split, 3 of 3 blocks of 8 tokens";
  r.evaluationSequences = 3;
  r.maxLength = 8;
  auto& s = r.statistics;
  s.layers = 2;
  s.heads = 2;
  s.sequences = 3;
  s.rows = 24;
  s.skippedRows = 24;
  s.entropy = {summary(1.25), summary(kNaN, 0), summary(4.75), summary(2.0)};
  s.entropyColours = {ColourClass::Blue, ColourClass::None, ColourClass::Red, ColourClass::Yellow};
  s.headOrder = {{0, 1}, {1, 0}};
  s.adjacentJsd = {summary(0.5), summary(kNaN, 0)};
  s.jsdColours = {ColourClass::Yellow, ColourClass::None};
  s.headSummaries.resize(4);
  s.headSummaries[0].previous = 0.9;
  s.headSummaries[1].previous = kNaN;
  s.headSummaries[2].first = 0.7;
  s.guidanceDistance.assign(4 * kGuidancePatterns.size(), 0.5);
  s.guidanceDistance[0 * 5 + 1] = 0.1;  // head (0, 0) follows "prev"
  for (std::size_t i = 0; i < 4; ++i) s.guidanceDistance[i * 5 + 4] = kNaN;  // no period
  s.guidanceMse.assign(4 * kGuidancePatterns.size(), 0.25);
  return r;
}

}  // namespace

class TestReportFormats : public QObject {
  Q_OBJECT
 private slots:
  void jsonNamesEverythingAndWritesUndefinedAsNull() {
    const auto doc = nlohmann::json::parse(analysisJson(handBuiltAnalysis()));
    QCOMPARE(doc["run"]["step"].get<int>(), 40);
    QCOMPARE(doc["run"]["checkpoint"].get<std::string>(),
             std::string("runs/x/checkpoints/step-0000040.h5"));
    QCOMPARE(doc["evaluation"]["sequences"].get<int>(), 3);
    QCOMPARE(doc["evaluation"]["skipped_rows"]["count"].get<int>(), 24);
    QCOMPARE(doc["units"]["entropy"].get<std::string>(), std::string("nats"));
    QCOMPARE(doc["units"]["jsd"].get<std::string>(), std::string("bits"));
    const auto& heads = doc["per_head"];
    QCOMPARE(heads.size(), std::size_t{4});
    QCOMPARE(heads[0]["entropy"]["median"].get<double>(), 1.25);
    QVERIFY(heads[1]["entropy"]["median"].is_null());
    QCOMPARE(heads[1]["entropy"]["colour"].get<std::string>(), std::string("none"));
    QCOMPARE(heads[2]["jsd_to_layer_below"]["median"].get<double>(), 0.5);  // layer 1 head 0
    QVERIFY(!heads[0].contains("jsd_to_layer_below"));                      // layer 0
    QVERIFY(heads[0]["guidance_conformity"]["period"]["total_variation"].is_null());
    QCOMPARE(heads[0]["guidance_conformity"]["prev"]["total_variation"].get<double>(), 0.1);
  }

  void csvRowsCarryTheValuesInHeadOrder() {
    const auto tables = analysisCsvTables(handBuiltAnalysis());
    const auto& entropy = tables.at("entropy_heads.csv");
    const QStringList rows = QString::fromStdString(entropy).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(rows.size(), 5);
    QCOMPARE(rows[0], QString("layer,head,rank_in_layer,count,mean_nats,min_nats,q1_nats,"
                              "median_nats,q3_nats,max_nats,colour"));
    QCOMPARE(rows[1], QString("0,0,0,10,1.25,0.25,0.75,1.25,1.75,2.25,blue"));
    QVERIFY2(rows[3].startsWith("1,1,0,10,2,"), qPrintable(rows[3]));  // layer 1: head 1 first
    QVERIFY(tables.at("jsd_adjacent_layers.csv").find("1,0,0,10,0.5,") != std::string::npos);
    QVERIFY(tables.count("jsd_pairwise_heads.csv") == 0);  // no pairwise matrix computed
  }

  void markdownSaysWhatIsUndefined() {
    const auto md = analysisMarkdown(handBuiltAnalysis());
    QVERIFY(md.find("at step 40") != std::string::npos);
    QVERIFY(md.find("validation split, 3 of 3 blocks of 8 tokens") != std::string::npos);
    QVERIFY(md.find("24 (head, row) pairs left out") != std::string::npos);
    // "previous token": head (0, 0) with 0.9; the NaN head neither wins nor spoils the mean.
    QVERIFY2(md.find("| previous token | L0H0 | 0.900 | 0.300 |") != std::string::npos, md.c_str());
    QVERIFY(md.find("| prev | L0H0 | 0.100 |") != std::string::npos);
    QVERIFY(md.find("| period | none: the data has no such position") != std::string::npos);
    QVERIFY(md.find("nan") == std::string::npos);
  }

  void corefReportWithNothingScored() {
    CorefProbeReport r;
    r.source = {"runs/x", "x", "runs/x/checkpoints/step-0000040.h5", 40};
    r.dataset = "conll:/data/dev.conll";
    r.datasetDescription = "CoNLL-2012 file /data/dev.conll, 0 windows";
    r.result.layers = 1;
    r.result.heads = 2;
    r.result.correct = {0, 0};
    r.result.accuracy = {0, 0};
    r.skipped = {{"/data/dev.conll:7", "line of 3 columns, expected at least 12"}};
    const auto doc = nlohmann::json::parse(corefJson(r));
    QVERIFY(doc["best_head"].is_null());
    QCOMPARE(doc["dataset"]["skipped_count"].get<int>(), 1);
    const auto md = corefMarkdown(r);
    QVERIFY(md.find("nothing scored") != std::string::npos);
    QVERIFY(md.find("`/data/dev.conll:7`: line of 3 columns") != std::string::npos);
    const auto tables = corefCsvTables(r);
    QVERIFY(tables.at("coref_baselines.csv").find("L-1") == std::string::npos);
    QCOMPARE(tables.at("coref_skipped.csv"),
             std::string("where,reason\n/data/dev.conll:7,\"line of 3 columns, expected at "
                         "least 12\"\n"));
  }

  // A file that cannot be written (here its staging name is taken by a folder) fails the
  // whole report, and the previous report stays whole: none of its files was replaced.
  void failedWriteKeepsThePreviousReport() {
    QTemporaryDir dir;
    const fs::path out = fs::path(dir.path().toStdString()) / "report";
    auto first = handBuiltAnalysis();
    writeAnalysisReport(first, out);
    const std::string oldJson = readText(out / "analysis.json");
    fs::create_directories(attnlab::core::temporaryPathFor(out / "analysis.md"));
    auto second = handBuiltAnalysis();
    second.source.step = 60;
    QVERIFY_THROWS_EXCEPTION(attnlab::Error, writeAnalysisReport(second, out));
    QCOMPARE(readText(out / "analysis.json"), oldJson);
    for (const auto& entry : fs::directory_iterator(out)) {
      const auto name = entry.path().filename().string();
      QVERIFY2(name.find(".tmp-") == std::string::npos || fs::is_directory(entry.path()),
               name.c_str());  // no staged file left behind
    }
  }

  void corefMatrixIsLayersByHeads() {
    CorefProbeReport r;
    r.source = {"runs/x", "x", "c.h5", 40};
    r.result.layers = 2;
    r.result.heads = 2;
    r.result.items = 4;
    r.result.correct = {1, 4, 0, 2};
    r.result.accuracy = {0.25, 1.0, 0.0, 0.5};
    r.result.bestLayer = 0;
    r.result.bestHead = 1;
    r.result.bestAccuracy = 1.0;
    r.result.meanAccuracy = 0.4375;
    const auto tables = corefCsvTables(r);
    QCOMPARE(tables.at("coref_accuracy.csv"),
             std::string("accuracy,head_0,head_1\nlayer_0,0.25,1\nlayer_1,0,0.5\n"));
    QVERIFY(corefMarkdown(r).find("| best head L0H1 | 100.0% | 4 |") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestReportFormats)
#include "test_report_formats.moc"
