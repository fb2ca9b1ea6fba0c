// Each command is written once (analysis/jobs): the app's Compare heads and Query-key map run
// the jobs `attnlab-cli compare --heads` and `attnlab-cli qk-map` run, so they give the same
// output. On two tiny runs trained by attnlab-cli: the app's heads_comparison.json (written
// by AnalysisController, as the Compare tab starts it) equals the CLI's `compare A B --heads
// --out` file in every field but its "seconds"; the app's query-key map (QueryKeyMapController
// with a ModelCache, as the map window makes it) has the tokens, evaluation, step and every
// head's coordinates of the CLI's qk-map file (read back here through core/hdf5). Numbers are
// compared to 1e-9 relative: the app's job thread may run LibTorch with another number of
// OpenMP threads than the command's main thread, which may change a float sum's order.
// ATTNLAB_JOB_SHOT_FILE=<png>: also saves the real window with an analysis running (the
// Analysis tab's job bar showing its phase and progress).
#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/jobs/job_runner.h"
#include "app/gui/jobs/model_cache.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/analysis_run_options.h"
#include "app/gui/query_key_map_controller.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "core/hdf5/hdf5_objects.h"
#include "tests/support/cli_process.h"
#include "tests/support/json_file.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/plot_widget.h"

#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <memory>

using namespace attnlab;

using attnlab::tests::readJson;

namespace {

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

/// Where `a` and `b` differ ("" when equal), ignoring the key "seconds" at any depth.
QString difference(const QJsonValue& a, const QJsonValue& b, const QString& at) {
  if (a.type() != b.type()) return at + ": types differ";
  if (a.isObject()) {
    QJsonObject x = a.toObject(), y = b.toObject();
    x.remove("seconds");
    y.remove("seconds");
    if (x.keys() != y.keys()) return at + ": keys differ";
    for (const QString& k : x.keys()) {
      const QString d = difference(x[k], y[k], at + "." + k);
      if (!d.isEmpty()) return d;
    }
    return {};
  }
  if (a.isArray()) {
    const QJsonArray x = a.toArray(), y = b.toArray();
    if (x.size() != y.size()) return at + ": lengths differ";
    for (int i = 0; i < x.size(); ++i) {
      const QString d = difference(x[i], y[i], at + "[" + QString::number(i) + "]");
      if (!d.isEmpty()) return d;
    }
    return {};
  }
  if (a.isDouble())
    return close(a.toDouble(), b.toDouble()) ? QString()
                                             : at + QStringLiteral(": %1 vs %2")
                                                        .arg(a.toDouble(), 0, 'g', 17)
                                                        .arg(b.toDouble(), 0, 'g', 17);
  return a == b ? QString() : at + ": values differ";
}

}  // namespace

class TestJobsCliParity : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_plain, m_variant;

  QString path(const QString& name) const { return m_dir.filePath(name); }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, path("settings"));
    QStandardPaths::setTestModeEnabled(true);
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = path("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_plain = path("plain");
    m_variant = path("realformer");
    const QStringList variant{"--set", "attention.residual=\"sum\"", "--set",
                              "run.name=\"realformer\""};
    for (const auto& [dir, extra] : {std::pair{m_plain, QStringList{"--set", "run.name=\"plain\""}},
                                     std::pair{m_variant, variant}}) {
      const auto r = tests::runCli(
          QStringList{"train", "--config", toml, "--run-dir", dir, "--plain"} + extra);
      QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    }
  }

  void compareHeadsIsTheClis() {
    app::AnalysisController controller;
    std::optional<app::ReportJobEnd> end;
    QString whyNot;
    QVERIFY2(controller.startHeadComparison(m_plain, m_variant, &whyNot,
                                            [&end](const app::ReportJobEnd& e) { end = e; }),
             qPrintable(whyNot));
    QTRY_VERIFY_WITH_TIMEOUT(end.has_value(), 180000);
    QVERIFY2(end->ok, qPrintable(end->message));
    QVERIFY2(end->reportPath.startsWith(m_plain + "/analysis/compare-step-8-vs-realformer-step-8/"),
             qPrintable(end->reportPath));
    const QJsonObject app = readJson(end->reportPath);
    QVERIFY(!app.isEmpty());

    const QString out = path("cli-compare");
    const auto r =
        tests::runCli({"compare", m_plain, m_variant, "--heads", "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const QJsonObject cli = readJson(out + "/heads_comparison.json");
    QVERIFY(!cli.isEmpty());
    QVERIFY(cli.contains("seconds") && cli.contains("heads") && cli.contains("cka"));
    const QString d = difference(app, cli, "heads_comparison.json");
    QVERIFY2(d.isEmpty(), qPrintable(d));
    // The CSV and Markdown are written by the same job too.
    for (const char* f : {"heads_matching.csv", "cka_layers.csv", "heads_comparison.md"})
      QVERIFY2(QFile::exists(QFileInfo(end->reportPath).dir().filePath(f)), f);
  }

  void queryKeyMapIsTheClis() {
    app::QueryKeyMapController controller;
    auto models = std::make_shared<app::ModelCache>();
    controller.setModels(models);
    std::shared_ptr<const app::QueryKeyMapResult> result;
    QString message;
    bool ended = false;
    connect(&controller, &app::QueryKeyMapController::finished, this,
            [&](bool, bool, const QString& m, std::shared_ptr<const app::QueryKeyMapResult> r) {
              ended = true;
              message = m;
              result = std::move(r);
            });
    app::QueryKeyMapRequest request;
    request.runDirectory = m_variant;
    request.layer = 1;
    request.head = -1;
    request.maxTokens = 600;
    QVERIFY(controller.start(request));
    QTRY_VERIFY_WITH_TIMEOUT(ended, 180000);
    QVERIFY2(result != nullptr, qPrintable(message));
    QCOMPARE(models->loadsOf(result->checkpoint.toStdString()), std::size_t(1));

    const QString out = path("cli-map.h5");
    const auto r = tests::runCli({"qk-map", m_variant, "--layer", "1", "--all-heads", "--tokens",
                                  "600", "--out", out, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    const auto file = core::hdf5::File::open(out.toStdString(), core::hdf5::ErrorDomain::RunLog,
                                             core::hdf5::File::Mode::ReadOnly);
    const auto root = file.root();
    const auto& s = result->sample;
    QCOMPARE(root.intAttribute("tokens"), s.tokens());
    QCOMPARE(root.intAttribute("step"), result->step);
    QCOMPARE(root.intAttribute("head"), std::int64_t(-1));
    QCOMPARE(QString::fromStdString(root.openAttribute("evaluation").readString()),
             result->evaluation);
    QCOMPARE(QString::fromStdString(root.openAttribute("checkpoint").readString()),
             result->checkpoint);
    const auto ids = root.openDataset("token_ids").readInt64();
    QCOMPARE(ids.size(), 2 * s.tokenIds.size());
    for (std::size_t i = 0; i < s.tokenIds.size(); ++i) QCOMPARE(ids[i], s.tokenIds[i]);
    QCOMPARE(root.openDataset("sentences").readStrings(), s.sentences);
    QCOMPARE(int(s.maps.size()), 2);
    for (const auto& head : s.maps) {
      const auto group = root.openGroup("heads/1_" + std::to_string(head.head));
      const auto coords = group.openDataset("coords").readFloat64();
      QCOMPARE(coords.size(), head.map.coords.size());
      for (std::size_t i = 0; i < coords.size(); ++i)
        QVERIFY2(close(coords[i], head.map.coords[i]),
                 qPrintable(QStringLiteral("head %1 coordinate %2: %3 vs %4")
                                .arg(head.head)
                                .arg(i)
                                .arg(coords[i], 0, 'g', 17)
                                .arg(head.map.coords[i], 0, 'g', 17)));
      QVERIFY(close(group.doubleAttribute("explained"), head.map.explained));
      QVERIFY(close(group.doubleAttribute("scale"), head.map.normalisation.scale));
    }
  }

  // Not a check: with ATTNLAB_JOB_SHOT_FILE set, the real window with an analysis running,
  // saved as a PNG once the Analysis tab's job bar shows a phase with progress.
  void screenshotOfAJobRunning() {
    const QString file = qEnvironmentVariable("ATTNLAB_JOB_SHOT_FILE");
    if (file.isEmpty()) QSKIP("ATTNLAB_JOB_SHOT_FILE not set");
    app::MainWindow window;
    window.resize(1280, 820);  // the window's default size
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(m_variant) != nullptr);
    QVERIFY(window.showView(QStringLiteral("Analysis")));
    app::AnalysisPanel* panel = window.parts().views->analysisPanel();
    auto* bar = panel->findChild<app::JobBar*>();
    QVERIFY(bar);
    // Over every checkpoint and with the heads: long enough to be caught running.
    panel->runOptionsButton()->overCheckpointsField()->setChecked(true);
    panel->runOptionsButton()->headsField()->setChecked(true);
    QTest::mouseClick(bar->runButton(), Qt::LeftButton);
    QVERIFY(window.parts().analysis->isRunning());
    // Caught within a phase where it can be (a tiny run's phases are short), else at a phase's
    // end.
    const auto within = [bar] {
      const QProgressBar* p = bar->progressBar();
      return p->maximum() > 0 && p->value() > 0 && p->value() < p->maximum();
    };
    if (!QTest::qWaitFor(within, 20000))
      QTRY_VERIFY_WITH_TIMEOUT(bar->progressBar()->value() > 0, 60000);
    QVERIFY(window.grab().save(file));
    window.parts().analysis->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!window.parts().analysis->isRunning(), 60000);
  }
};

QTEST_MAIN(TestJobsCliParity)
#include "test_jobs_cli_parity.moc"
