#pragma once

// Field-by-field comparison of a report written and the report read back
// (analysis/report/report_readers.h): doubles bit for bit, NaN equal to NaN (JSON null carries
// no payload). Shared by the readers' unit test and the end-to-end test of a real run.
// QtTest failures inside these helpers mark the calling test as failed.

#include "analysis/runs/analysis_report.h"
#include "analysis/runs/coref_probe_report.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <vector>

namespace attnlab::tests {

using analysis::AnalysedCheckpoint;
using analysis::AnalysisReport;
using analysis::CorefProbeReport;
using analysis::DistributionSummary;
using analysis::HeadSummary;
using analysis::SkippedData;

/// Equal as the same double: bit for bit, except that any NaN equals any NaN (JSON null
/// carries no payload).
inline bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

#define ATTNLAB_EXPECT_SAME_DOUBLE(a, b)                                           \
  QVERIFY2(same((a), (b)), qPrintable(QString("%1: %2 read back as %3")            \
                                          .arg(#a)                                 \
                                          .arg(static_cast<double>(a), 0, 'g', 17) \
                                          .arg(static_cast<double>(b), 0, 'g', 17)))

inline void expectSame(const std::vector<double>& a, const std::vector<double>& b,
                       const char* what) {
  QVERIFY2(a.size() == b.size(), what);
  for (std::size_t i = 0; i < a.size(); ++i) {
    QVERIFY2(same(a[i], b[i]), qPrintable(QString("%1[%2]: %3 read back as %4")
                                              .arg(what)
                                              .arg(i)
                                              .arg(a[i], 0, 'g', 17)
                                              .arg(b[i], 0, 'g', 17)));
  }
}

inline void expectSame(const DistributionSummary& a, const DistributionSummary& b) {
  QCOMPARE(b.count, a.count);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.mean, b.mean);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.min, b.min);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.q1, b.q1);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.median, b.median);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.q3, b.q3);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.max, b.max);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.resolution, b.resolution);
  expectSame(a.histogramEdges, b.histogramEdges, "histogramEdges");
  QCOMPARE(b.histogramCounts, a.histogramCounts);
  expectSame(a.kdeX, b.kdeX, "kdeX");
  expectSame(a.kdeDensity, b.kdeDensity, "kdeDensity");
  ATTNLAB_EXPECT_SAME_DOUBLE(a.kdeBandwidth, b.kdeBandwidth);
  QCOMPARE(b.clamped, a.clamped);
}

inline void expectSame(const HeadSummary& a, const HeadSummary& b) {
  ATTNLAB_EXPECT_SAME_DOUBLE(a.first, b.first);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.separator, b.separator);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.period, b.period);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.previous, b.previous);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.next, b.next);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.self, b.self);
}

inline void expectSame(const AnalysedCheckpoint& a, const AnalysedCheckpoint& b) {
  QCOMPARE(b.runDir, a.runDir);
  QCOMPARE(b.runName, a.runName);
  QCOMPARE(b.checkpoint, a.checkpoint);
  QCOMPARE(b.step, a.step);
}

inline void expectSame(const std::vector<SkippedData>& a, const std::vector<SkippedData>& b) {
  QCOMPARE(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(b[i].where, a[i].where);
    QCOMPARE(b[i].reason, a[i].reason);
  }
}

/// Every field of `a` (the report written) against `b` (the report read back).
inline void expectSameAnalysis(const AnalysisReport& a, const AnalysisReport& b) {
  expectSame(a.source, b.source);
  QCOMPARE(b.availableSteps, a.availableSteps);
  QCOMPARE(b.evaluationKind, a.evaluationKind);
  QCOMPARE(b.evaluationDescription, a.evaluationDescription);
  QCOMPARE(b.evaluationSequences, a.evaluationSequences);
  QCOMPARE(b.maxLength, a.maxLength);
  QCOMPARE(b.configToml, a.configToml);
  expectSame(a.skipped, b.skipped);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.seconds, b.seconds);

  const auto& s = a.statistics;
  const auto& t = b.statistics;
  QCOMPARE(t.layers, s.layers);
  QCOMPARE(t.heads, s.heads);
  QVERIFY(t.jsdBase == s.jsdBase);
  QCOMPARE(t.clarkSmoothing, s.clarkSmoothing);
  QCOMPARE(t.sequences, s.sequences);
  QCOMPARE(t.rows, s.rows);
  QCOMPARE(t.skippedRows, s.skippedRows);
  QCOMPARE(t.entropy.size(), s.entropy.size());
  for (std::size_t i = 0; i < s.entropy.size(); ++i) expectSame(s.entropy[i], t.entropy[i]);
  QVERIFY(t.entropyColours == s.entropyColours);
  QCOMPARE(t.headOrder, s.headOrder);
  QCOMPARE(t.adjacentJsd.size(), s.adjacentJsd.size());
  for (std::size_t i = 0; i < s.adjacentJsd.size(); ++i)
    expectSame(s.adjacentJsd[i], t.adjacentJsd[i]);
  QVERIFY(t.jsdColours == s.jsdColours);
  expectSame(s.pairwiseJsd, t.pairwiseJsd, "pairwiseJsd");
  QCOMPARE(t.pairwiseSequencesUsed, s.pairwiseSequencesUsed);
  QCOMPARE(t.headSummaries.size(), s.headSummaries.size());
  for (std::size_t i = 0; i < s.headSummaries.size(); ++i)
    expectSame(s.headSummaries[i], t.headSummaries[i]);
  expectSame(s.guidanceDistance, t.guidanceDistance, "guidanceDistance");
  expectSame(s.guidanceMse, t.guidanceMse, "guidanceMse");

  QCOMPARE(b.variantSeries.size(), a.variantSeries.size());
  for (std::size_t i = 0; i < a.variantSeries.size(); ++i) {
    const auto& v = a.variantSeries[i];
    const auto& w = b.variantSeries[i];
    QCOMPARE(w.name, v.name);
    QCOMPARE(w.description, v.description);
    QCOMPARE(w.unit, v.unit);
    QCOMPARE(w.steps, v.steps);
    QCOMPARE(w.innerShape, v.innerShape);
    QCOMPARE(w.values.size(), v.values.size());
    for (std::size_t k = 0; k < v.values.size(); ++k) {
      QVERIFY2((std::isnan(v.values[k]) && std::isnan(w.values[k])) ||
                   std::memcmp(&v.values[k], &w.values[k], sizeof(float)) == 0,
               qPrintable(QString("%1 value %2").arg(QString::fromStdString(v.name)).arg(k)));
    }
  }
  QCOMPARE(b.overTraining.size(), a.overTraining.size());
  for (std::size_t i = 0; i < a.overTraining.size(); ++i) {
    const auto& p = a.overTraining[i];
    const auto& q = b.overTraining[i];
    QCOMPARE(q.source, p.source);
    QCOMPARE(q.step, p.step);
    QCOMPARE(q.sequences, p.sequences);
    expectSame(p.medianEntropy, q.medianEntropy, "medianEntropy");
    expectSame(p.medianAdjacentJsd, q.medianAdjacentJsd, "medianAdjacentJsd");
    QCOMPARE(q.headSummaries.size(), p.headSummaries.size());
    for (std::size_t k = 0; k < p.headSummaries.size(); ++k)
      expectSame(p.headSummaries[k], q.headSummaries[k]);
    expectSame(p.guidanceDistance, q.guidanceDistance, "over-training guidanceDistance");
  }
}

inline void expectSameCoref(const CorefProbeReport& a, const CorefProbeReport& b) {
  expectSame(a.source, b.source);
  QCOMPARE(b.dataset, a.dataset);
  QCOMPARE(b.datasetDescription, a.datasetDescription);
  QCOMPARE(b.examples, a.examples);
  QCOMPARE(b.scope, a.scope);
  expectSame(a.skipped, b.skipped);
  ATTNLAB_EXPECT_SAME_DOUBLE(a.seconds, b.seconds);
  const auto& p = a.result;
  const auto& q = b.result;
  QCOMPARE(q.layers, p.layers);
  QCOMPARE(q.heads, p.heads);
  QVERIFY(q.scope == p.scope);
  QCOMPARE(q.examples, p.examples);
  QCOMPARE(q.items, p.items);
  QCOMPARE(q.correct, p.correct);
  expectSame(p.accuracy, q.accuracy, "accuracy");
  QCOMPARE(q.bestLayer, p.bestLayer);
  QCOMPARE(q.bestHead, p.bestHead);
  ATTNLAB_EXPECT_SAME_DOUBLE(p.bestAccuracy, q.bestAccuracy);
  ATTNLAB_EXPECT_SAME_DOUBLE(p.meanAccuracy, q.meanAccuracy);
  QCOMPARE(q.baselines.size(), p.baselines.size());
  for (std::size_t i = 0; i < p.baselines.size(); ++i) {
    QCOMPARE(q.baselines[i].name, p.baselines[i].name);
    QCOMPARE(q.baselines[i].description, p.baselines[i].description);
    QCOMPARE(q.baselines[i].correct, p.baselines[i].correct);
    QCOMPARE(q.baselines[i].items, p.baselines[i].items);
    ATTNLAB_EXPECT_SAME_DOUBLE(p.baselines[i].accuracy, q.baselines[i].accuracy);
  }
}

}  // namespace attnlab::tests
