// Steering analyzeRun on a real (tiny) trained run: progress reports for every phase, monotone
// and ending at their totals; a cancel from another thread at any phase stops it within a
// second with attnlab::Cancelled and leaves no report and no stray file; and the reports a
// real analysis and probe write read back field for field (report_readers.h).
#include "analysis/report/json_report.h"
#include "analysis/report/report_files.h"
#include "analysis/report/report_readers.h"
#include "analysis/runs/analysis_control.h"
#include "analysis/runs/attention_analysis.h"
#include "analysis/runs/coref_probe_run.h"
#include "core/errors/error.h"
#include "core/train/trainer.h"
#include "tests/support/report_equality.h"
#include "tests/support/tiny_run_setup.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <thread>

using namespace attnlab;
using namespace attnlab::analysis;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

struct ProgressReport {
  std::string phase;
  std::int64_t done = 0, total = 0;
};

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Every path under `dir`, relative, so a test can see what a cancelled analysis left.
std::set<std::string> filesUnder(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    out.insert(fs::relative(entry.path(), dir).string());
  }
  return out;
}

/// Each phase's reports: done never decreases, stays within [0, total], total does not
/// change, and the last report has done == total.
void expectMonotonePhases(const std::vector<ProgressReport>& reports) {
  std::map<std::string, std::vector<ProgressReport>> byPhase;
  for (const auto& r : reports) byPhase[r.phase].push_back(r);
  for (const auto& [phase, list] : byPhase) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& r = list[i];
      const auto where = QString("%1 report %2: %3 / %4")
                             .arg(QString::fromStdString(phase))
                             .arg(i)
                             .arg(r.done)
                             .arg(r.total);
      QVERIFY2(r.done >= 0 && r.done <= r.total, qPrintable(where));
      QVERIFY2(r.total == list.front().total, qPrintable(where));
      if (i > 0) QVERIFY2(r.done >= list[i - 1].done, qPrintable(where));
    }
    QVERIFY2(list.back().done == list.back().total,
             qPrintable(QString::fromStdString(phase) + " does not end at its total"));
  }
}

}  // namespace

class TestAnalysisControl : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    auto config = tests::prepareTinyRun(root());
    config.run.name = "steered";
    config.model.layers = 3;
    config.model.maxPositions = 48;
    m_run = root() / "run";
    std::atomic<bool> never{false};
    core::Trainer(config, m_run).run(never);
    m_text = root() / "eval.txt";
    std::ofstream text(m_text, std::ios::binary);
    for (int i = 0; i < 600; ++i) text << "the cat watched the river number " << i << " .\n";
  }

  // Every phase reports, in order; each is monotone and ends at its total.
  void progressIsMonotoneAndEndsAtTotal() {
    std::vector<ProgressReport> reports;
    AnalyzeOptions options;
    options.run = m_run;
    options.overCheckpoints = true;
    options.evaluation.batchSize = 3;
    const auto report =
        analyzeRun(options, [&](const std::string& phase, std::int64_t done, std::int64_t total) {
          reports.push_back({phase, done, total});
        });
    expectMonotonePhases(reports);
    std::vector<std::string> order;
    for (const auto& r : reports) {
      if (order.empty() || order.back() != r.phase) order.push_back(r.phase);
    }
    const std::vector<std::string> expected = {kPhaseLoadCheckpoint, kPhaseBuildEvaluationSet,
                                               kPhaseEvaluationSet,  kPhaseSnapshots,
                                               "checkpoint 4",       "checkpoint 8"};
    QCOMPARE(order, expected);
    for (const auto& r : reports) {
      if (r.phase == kPhaseEvaluationSet) QCOMPARE(r.total, report.evaluationSequences);
      if (r.phase == kPhaseBuildEvaluationSet) QCOMPARE(r.total, std::int64_t{4});  // data phases
    }
  }

  // A text file reports the bytes read while it is encoded.
  void textFileProgressCountsBytes() {
    std::vector<ProgressReport> reports;
    AnalyzeOptions options;
    options.run = m_run;
    options.evaluation.textFile = m_text;
    options.overSnapshots = false;
    analyzeRun(options, [&](const std::string& phase, std::int64_t done, std::int64_t total) {
      reports.push_back({phase, done, total});
    });
    expectMonotonePhases(reports);
    std::int64_t building = 0;
    for (const auto& r : reports) {
      if (r.phase != kPhaseBuildEvaluationSet) continue;
      ++building;
      QCOMPARE(r.total, static_cast<std::int64_t>(fs::file_size(m_text)));
    }
    QVERIFY2(building > 2, "no intermediate progress while reading 600 lines");
  }

  // Cancelled from another thread at a report of each phase (the first, or one after some
  // work was done): Cancelled within a second, naming how far it got, and no report.
  void cancelStopsWithinASecond_data() {
    QTest::addColumn<QString>("phase");
    QTest::addColumn<qint64>("atDone");  // cancel at the first report with done >= atDone
    QTest::addColumn<bool>("text");
    QTest::addColumn<QString>("where");  // the start of the Cancelled's where()
    QTest::newRow("loading the checkpoint")
        << QString(kPhaseLoadCheckpoint) << qint64{0} << false << "analysis (loading ";
    // The run's finished token store opens at once: the stop is seen right after it.
    QTest::newRow("building the validation set")
        << QString(kPhaseBuildEvaluationSet) << qint64{1} << false
        << QString("analysis (") + kPhaseBuildEvaluationSet + ")";
    QTest::newRow("reading a text file")
        << QString(kPhaseBuildEvaluationSet) << qint64{1} << true << "analysis (reading ";
    QTest::newRow("between batches") << QString(kPhaseEvaluationSet) << qint64{1} << false
                                     << "analysis (evaluation set, after 2 of ";
    QTest::newRow("snapshots") << QString(kPhaseSnapshots) << qint64{1} << false
                               << "analysis (snapshots, row 1 of ";
    QTest::newRow("other checkpoints")
        << QString("checkpoint 4") << qint64{0} << false << "analysis (checkpoint 4, after 0 of ";
  }

  void cancelStopsWithinASecond() {
    QFETCH(QString, phase);
    QFETCH(qint64, atDone);
    QFETCH(bool, text);
    QFETCH(QString, where);
    const auto before = filesUnder(m_run);
    const fs::path out = root() / "cancelled-report";

    std::atomic<bool> cancel{false};
    std::promise<void> reached, stored;
    auto reachedFuture = reached.get_future();
    auto storedFuture = stored.get_future();
    Clock::time_point cancelledAt;
    // The canceller is another thread, as the app's GUI thread would be; the analysis waits
    // at the chosen report until the flag is set, so the test does not depend on timing.
    std::thread canceller([&] {
      reachedFuture.wait();
      cancel.store(true);
      cancelledAt = Clock::now();
      stored.set_value();
    });
    bool fired = false;
    const auto progress = [&](const std::string& p, std::int64_t done, std::int64_t) {
      if (fired || p != phase.toStdString() || done < atDone) return;
      fired = true;
      reached.set_value();
      storedFuture.wait();
    };

    AnalyzeOptions options;
    options.run = m_run;
    options.overCheckpoints = true;
    options.evaluation.batchSize = 2;
    if (text) options.evaluation.textFile = m_text;
    QString error;
    Clock::time_point returnedAt;
    try {
      const auto report = analyzeRun(options, progress, &cancel);
      writeAnalysisReport(report, out);  // what the CLI and the app do after a success
      error = "no error";
    } catch (const Cancelled& e) {
      returnedAt = Clock::now();
      error = QString::fromStdString(e.where());
    } catch (const std::exception& e) {
      error = QString("not Cancelled: ") + e.what();
    }
    if (!fired) reached.set_value();  // lets the canceller finish
    canceller.join();
    QVERIFY2(fired, "the phase was never reported");
    QVERIFY2(error.startsWith(where), qPrintable(error));
    const auto latency = std::chrono::duration<double>(returnedAt - cancelledAt).count();
    QVERIFY2(latency < 1.0, qPrintable(QString("stopped %1 s after the cancel").arg(latency)));
    QVERIFY(!fs::exists(out));
    // Nothing new in the run folder: no report, no staged temporary.
    QCOMPARE(filesUnder(m_run), before);
  }

  void cancelBeforeTheStartDoesNothing() {
    std::atomic<bool> cancel{true};
    AnalyzeOptions options;
    options.run = m_run;
    bool reported = false;
    try {
      analyzeRun(
          options, [&](const std::string&, std::int64_t, std::int64_t) { reported = true; },
          &cancel);
      QFAIL("no error");
    } catch (const Cancelled& e) {
      QCOMPARE(QString(e.what()),
               QString("analysis (selecting the checkpoint): cancelled on request"));
    }
    QVERIFY(!reported);
  }

  // The reports a real analysis and a real probe write read back as the reports written.
  void reportsOfARealRunReadBack() {
    AnalyzeOptions options;
    options.run = m_run;
    options.overCheckpoints = true;
    const auto analysed = analyzeRun(options);
    const fs::path out = root() / "report";
    writeAnalysisReport(analysed, out);
    const auto read = readAnalysisJson(out / "analysis.json");
    tests::expectSameAnalysis(analysed, read);
    QCOMPARE(analysisJson(read), readText(out / "analysis.json"));
    QVERIFY(!read.overTraining.empty());
    QVERIFY(!read.statistics.pairwiseJsd.empty());

    CorefProbeOptions probe;
    probe.run = m_run;
    probe.syntheticSize = 40;
    const auto probed = probeCoreference(probe);
    writeCorefReport(probed, out);
    const auto readCoref = readCorefJson(out / "coref.json");
    tests::expectSameCoref(probed, readCoref);
    QCOMPARE(corefJson(readCoref), readText(out / "coref.json"));
  }

 private:
  fs::path root() const { return fs::path(m_dir.path().toStdString()); }

  QTemporaryDir m_dir;
  fs::path m_run;
  fs::path m_text;
};

QTEST_APPLESS_MAIN(TestAnalysisControl)
#include "test_analysis_control.moc"
