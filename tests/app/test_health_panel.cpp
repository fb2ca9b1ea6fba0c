// The Health tab in the real main window on runs trained by attnlab-cli: the heatmap's cells
// are the run log's health series as h5py reads them (independently of the project's
// readers), the step slider moves the heatmap and follows a live run until the person moves
// it, a click on a head opens the Inspect tab on that head at the nearest checkpoint, a log
// whose health series were edited by h5py raises each of the three alarms once (list, trend
// markers, console; the thresholds dialog changes them), and logs without health series
// (log.health = false, a log from before the series) say so and why.
#include "app/gui/app_settings.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/console_dock.h"
#include "app/gui/panels/health/health_alarm_dialog.h"
#include "app/gui/panels/health/health_panel.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/view_tabs.h"
#include "tests/support/cli_process.h"
#include "tests/support/small_run_toml.h"
#include "tests/support/tiny_corpus.h"
#include "tests/support/window_tabs.h"
#include "widgets/plots/head_value_map.h"
#include "widgets/plots/step_trend_plot.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/types.h>

#include <cmath>
#include <set>

using namespace attnlab;

namespace {

// The run: 12 steps, health at every step (log_every 1), checkpoints at 4, 8 and 12.
constexpr int kSteps = 12;
constexpr int kEvery = 4;
// The row of the edited log whose health series raise the three alarms.
constexpr int kAlarmRow = 6;

/// h5py's view of a log's health series: steps and the values the tests compare, as JSON.
QJsonObject readHealth(const QString& log) {
  const QString code =
      QStringList{"import h5py, json, sys",
                  "f = h5py.File(sys.argv[1], 'r')",
                  "g = f['series/health']",
                  "out = {k: g[k]['value'][()].tolist() for k in "
                  "('entropy_min', 'class_mass', 'massive_ratio', 'sink_rate', 'logit_max')}",
                  "out['steps'] = g['entropy_mean']['step'][()].tolist()",
                  "print(json.dumps(out))"}
          .join('\n');
  const auto py = tests::runProcess(tests::kPython, {"-c", code, log});
  if (py.exitCode != 0) qWarning("%s", qPrintable(py.err));
  // Python writes NaN where a class is absent; JSON has null.
  QString text = py.out;
  text.replace("NaN", "null");
  return QJsonDocument::fromJson(text.toUtf8()).object();
}

/// A copy of `from` (run folder) at `to` whose run.h5 is edited by `edit` (Python with `g`
/// the health group, `k` the alarm row and numpy as np).
bool copyAndEdit(const QString& from, const QString& to, const QStringList& edit) {
  const QString code = (QStringList{"import h5py, shutil, sys, numpy as np",
                                    "shutil.copytree(sys.argv[1], sys.argv[2])",
                                    "f = h5py.File(sys.argv[2] + '/run.h5', 'r+')",
                                    "k = int(sys.argv[3])", "g = f['series/health']"} +
                        edit + QStringList{"f.close()"})
                           .join('\n');
  const auto py =
      tests::runProcess(tests::kPython, {"-c", code, from, to, QString::number(kAlarmRow)});
  if (py.exitCode != 0) qWarning("%s", qPrintable(py.err + py.out));
  return py.exitCode == 0;
}

bool close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b));
}

}  // namespace

class TestHealthPanel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run, m_noHealth, m_alarming, m_old;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  static app::HealthPanel* panelOf(app::MainWindow& window) {
    return window.parts().views->healthPanel();
  }

  void trainSmallRun(const QString& dir, const QStringList& extra = {}) {
    const auto r = tests::runCli(
        QStringList{"train", "--config", path("small.toml"), "--run-dir", dir, "--plain"} + extra);
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, path("settings"));
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(tests::writeBytes(path("corpus.txt"),
                              QByteArray::fromStdString(tests::regularCorpusText(300))));
    QVERIFY(tests::writeBytes(path("small.toml"),
                              tests::smallRunToml("health", path("corpus.txt"), kSteps, kEvery)));
    m_run = path("run");
    trainSmallRun(m_run);
    m_noHealth = path("no-health");
    trainSmallRun(m_noHealth, {"--set", "log.health=false"});
    // Alarms at row kAlarmRow and nowhere else: layer 1's massive ratio 500 (10 elsewhere),
    // layer 0 head 1's minimum entropy 0.01 nats (1 nat or more elsewhere) while its S_max
    // rises by 5, class sep's sink rate from 0 to 0.8 (every other rate constant).
    m_alarming = path("alarming");
    QVERIFY(copyAndEdit(m_run, m_alarming,
                        {"m = g['massive_ratio/value']; a = m[()]; a[:] = 10; a[k, 1] = 500; "
                         "m[...] = a",
                         "e = g['entropy_min/value']; a = np.maximum(e[()], 1.0); "
                         "a[k, 0, 1] = 0.01; e[...] = a",
                         "s = g['logit_max/value']; a = s[()]; a[k, 0, 1] = a[k - 1, 0, 1] + 5; "
                         "s[...] = a",
                         "r = g['sink_rate/value']; a = r[()]; a[:] = a[0]; a[:, 2] = 0; "
                         "a[k:, 2] = 0.8; r[...] = a"}));
    // A log from before the health series: the same run without its health/ group.
    m_old = path("old-log");
    QVERIFY(copyAndEdit(m_run, m_old, {"del f['series/health']"}));
  }

  void heatmapShowsTheLogsValues() {
    const QJsonObject log = readHealth(m_run + "/run.h5");
    const QJsonArray steps = log["steps"].toArray();
    QCOMPARE(steps.size(), kSteps + 1);  // steps 0 to 12
    app::MainWindow window;
    tests::openOnTab(window, m_run, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY(panel->showsContent());
    QTRY_COMPARE(static_cast<int>(panel->history().steps.size()), steps.size());
    // A finished run opens on its newest step.
    QTRY_COMPARE(panel->shownStep(), static_cast<qint64>(kSteps));
    QVERIFY(panel->followsLatest());
    widgets::HeadValueMap* map = panel->heatmap();
    QCOMPARE(map->values().rows, 2);
    QCOMPARE(map->values().cols, 2);
    QVERIFY(map->valueLabel().contains("nats"));
    const QJsonArray last = log["entropy_min"].toArray().last().toArray();
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h)
        QVERIFY2(close(map->drawnCell(l, h), last[l].toArray()[h].toDouble()),
                 qPrintable(QString("L%1 H%2: %3 vs %4")
                                .arg(l)
                                .arg(h)
                                .arg(map->drawnCell(l, h))
                                .arg(last[l].toArray()[h].toDouble())));

    // The slider moved by the keyboard: the first logged step, and no longer following.
    QSlider* slider = panel->stepSlider();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(panel->shownStep(), qint64(0));
    QVERIFY(!panel->followsLatest());
    QTest::keyClick(slider, Qt::Key_Right);
    QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(panel->shownStep(), qint64(2));
    QTRY_VERIFY(map->title().contains("step 2"));
    const QJsonArray row2 = log["entropy_min"].toArray()[2].toArray();
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h)
        QVERIFY(close(map->drawnCell(l, h), row2[l].toArray()[h].toDouble()));

    // Sink mass on [SEP]: class_mass[:, :, 2] (NaN where no probe sequence holds one).
    QComboBox* quantity = panel->quantityBox();
    quantity->setFocus();
    QTest::keyClicks(quantity, "sink");
    QCOMPARE(panel->quantity(), app::HealthQuantity::SinkMass);
    QVERIFY(panel->classBox()->isVisible());
    QComboBox* classes = panel->classBox();
    classes->setFocus();
    QTest::keyClicks(classes, "sep");
    QCOMPARE(panel->sinkClass(), 2);
    QTRY_VERIFY(map->valueLabel().contains("sink mass on sep"));
    const QJsonArray mass = log["class_mass"].toArray()[2].toArray();
    for (int l = 0; l < 2; ++l)
      for (int h = 0; h < 2; ++h) {
        const QJsonValue v = mass[l].toArray()[h].toArray()[2];
        QVERIFY(close(map->drawnCell(l, h), v.isNull() ? std::nan("") : v.toDouble()));
      }
    QVERIFY(map->valueRange() == std::make_pair(0.0, 1.0));  // a share of attention

    // The other plots: sink rate per class, massive ratio and rank collapse per layer.
    QCOMPARE(panel->sinkRatePlot()->lineCount(), 5);
    const std::vector<double> sep = panel->sinkRatePlot()->lineValues("sep");
    QCOMPARE(static_cast<int>(sep.size()), steps.size());
    for (int r = 0; r < steps.size(); ++r) {
      const QJsonValue v = log["sink_rate"].toArray()[r].toArray()[2];
      QVERIFY(close(sep[r], v.isNull() ? std::nan("") : v.toDouble()));
    }
    QCOMPARE(panel->massivePlot()->lineCount(), 2);
    QVERIFY(panel->massivePlot()->logY());
    QCOMPARE(panel->rankPlot()->lineCount(), 2);
    QCOMPARE(panel->trendPlot()->lineCount(), 4);  // one per head
    QVERIFY(panel->trendPlot()->yLabel().contains("fraction of attention"));
    QCOMPARE(panel->trendPlot()->cursorStep(), 2.0);
    panel->trendBox()->setFocus();
    QTest::keyClick(panel->trendBox(), Qt::Key_Down);
    QTRY_COMPARE(panel->trendPlot()->lineCount(), 2);  // one per layer
    QVERIFY(panel->alarms().empty());                  // this run raises none
  }

  void clickingAHeadOpensInspect() {
    app::MainWindow window;
    tests::openOnTab(window, m_run, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY(panel->showsContent());
    QTRY_COMPARE(static_cast<int>(panel->history().steps.size()), kSteps + 1);
    QSlider* slider = panel->stepSlider();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    for (int i = 0; i < 7; ++i) QTest::keyClick(slider, Qt::Key_Right);
    QCOMPARE(panel->shownStep(), qint64(7));  // the nearest checkpoint is step 8
    widgets::HeadValueMap* map = panel->heatmap();
    map->replotNow();
    QSignalSpy asked(panel, &app::HealthPanel::inspectRequested);
    QTest::mouseClick(map->customPlot(), Qt::LeftButton, {}, map->cellCentre(1, 0));
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().at(2).toLongLong(), qlonglong(8));
    app::InspectorPanel* inspector = window.parts().views->inspectorPanel();
    QCOMPARE(window.parts().views->currentWidget(), static_cast<QWidget*>(inspector));
    QCOMPARE(inspector->selectedLayer(), 1);
    QCOMPARE(inspector->selectedHead(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(inspector->frame().has_value(), 60000);
    QCOMPARE(inspector->frame()->step, qint64(8));
    QCOMPARE(inspector->selectedLayer(), 1);
    QCOMPARE(inspector->selectedHead(), 0);
  }

  void alarmsFireOnAnEditedLog() {
    app::MainWindow window;
    tests::openOnTab(window, m_alarming, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_COMPARE(static_cast<int>(panel->alarms().size()), 3);
    const qint64 step = panel->history().steps[kAlarmRow];
    QCOMPARE(step, static_cast<qint64>(kAlarmRow));
    using Kind = app::HealthAlarm::Kind;
    std::set<int> seen;
    for (const app::HealthAlarm& a : panel->alarms()) {
      QCOMPARE(a.step, step);
      const bool where = a.kind == Kind::EntropyCollapse     ? a.layer == 0 && a.head == 1
                         : a.kind == Kind::MassiveActivation ? a.layer == 1
                                                             : a.sinkClass == 2;
      QVERIFY2(where, qPrintable(a.text));
      seen.insert(static_cast<int>(a.kind));
    }
    QCOMPARE(seen.size(), std::size_t(3));
    // Marked on the trends: every alarm on the quantity's, each kind on its own plot.
    QTRY_VERIFY(panel->trendPlot()->markerSteps().contains(double(step)));
    QCOMPARE(panel->massivePlot()->markerSteps(), QVector<double>{double(step)});
    QCOMPARE(panel->sinkRatePlot()->markerSteps(), QVector<double>{double(step)});
    // One console line each, told once.
    const QString console = window.parts().console->text();
    QCOMPARE(console.count("entropy collapse: layer 0 head 1"), 1);
    QCOMPARE(console.count("massive activation: layer 1"), 1);
    QCOMPARE(console.count("sink-rate jump: class sep"), 1);
    QVERIFY(console.contains("health alarm @ 6"));
    // The collapsed head is framed on the heatmap at and after its step.
    QVERIFY(panel->heatmap()->markedHeads().contains(QPoint(0, 1)));

    // A click on the collapse alarm: the Inspect tab on layer 0 head 1, at step 8's checkpoint
    // (6 is as near to 4 as to 8: the earlier wins).
    QListWidget* list = panel->alarmList();
    int row = -1;
    for (int i = 0; i < list->count(); ++i)
      if (list->item(i)->text().contains("entropy collapse")) row = i;
    QVERIFY(row >= 0);
    QSignalSpy asked(panel, &app::HealthPanel::inspectRequested);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(row)).center());
    QCOMPARE(asked.count(), 1);
    QCOMPARE(asked.first().at(0).toInt(), 0);
    QCOMPARE(asked.first().at(1).toInt(), 1);
    QCOMPARE(asked.first().at(2).toLongLong(), qlonglong(4));
    QCOMPARE(panel->shownStep(), step);
    app::InspectorPanel* inspector = window.parts().views->inspectorPanel();
    QCOMPARE(window.parts().views->currentWidget(), static_cast<QWidget*>(inspector));
    QCOMPARE(inspector->selectedLayer(), 0);
    QCOMPARE(inspector->selectedHead(), 1);

    // The thresholds dialog: a massive ratio of 1000 clears that alarm (and comes back).
    tests::clickTab(window, "Health");
    QPushButton* settingsButton = panel->findChild<QPushButton*>("healthAlarmSettings");
    QTest::mouseClick(settingsButton, Qt::LeftButton);
    auto* dialog = panel->findChild<app::HealthAlarmDialog*>();
    QVERIFY(dialog != nullptr);
    QTRY_VERIFY(dialog->isVisible());
    dialog->massiveBox()->setFocus();
    dialog->massiveBox()->selectAll();
    QTest::keyClicks(dialog->massiveBox(), "1000");
    QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok),
                      Qt::LeftButton);
    QCOMPARE(app::AppSettings().healthAlarms().massiveRatio, 1000.0);
    QTRY_COMPARE(static_cast<int>(panel->alarms().size()), 2);
    QTRY_VERIFY(panel->massivePlot()->markerSteps().isEmpty());
    app::AppSettings().setHealthAlarms({});
  }

  void aLogWithoutHealthSaysWhy() {
    {
      app::MainWindow window;
      tests::openOnTab(window, m_noHealth, "Health");
      app::HealthPanel* panel = panelOf(window);
      QTRY_VERIFY(panel->placeholderText().contains("log.health = false"));
      QVERIFY(!panel->showsContent());
      // The rest of the window works: the curves are there.
      tests::clickTab(window, "Curves");
    }
    app::MainWindow window;
    tests::openOnTab(window, m_old, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY(panel->placeholderText().contains("written before"));
    QVERIFY(!panel->showsContent());
    QVERIFY(panel->exportCurrentFigure(path("none.png"), {}).contains("nothing to export"));
  }

  void followsALiveRunUntilTheSliderMoves() {
    // A long run in another process, paused and resumed with SIGSTOP / SIGCONT so that the
    // test decides when rows arrive.
    QVERIFY(tests::writeBytes(path("long.toml"),
                              tests::smallRunToml("live", path("corpus.txt"), 100000, 100000)));
    const QString dir = path("live");
    QProcess trainer;
    trainer.start(tests::kCli,
                  {"train", "--config", path("long.toml"), "--run-dir", dir, "--plain"});
    QVERIFY(trainer.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir + "/run.h5"), 120000);
    app::MainWindow window;
    tests::openOnTab(window, dir, "Health");
    app::HealthPanel* panel = panelOf(window);
    QTRY_VERIFY_WITH_TIMEOUT(panel->history().steps.size() >= 3, 60000);
    QCOMPARE(trainer.state(), QProcess::Running);
    ::kill(static_cast<pid_t>(trainer.processId()), SIGSTOP);
    // Following: the newest step gathered is the one shown.
    QTRY_COMPARE(panel->shownStep(), panel->history().steps.back());
    QVERIFY(panel->followsLatest());
    QSlider* slider = panel->stepSlider();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Home);
    QVERIFY(!panel->followsLatest());
    const std::size_t rows = panel->history().steps.size();
    ::kill(static_cast<pid_t>(trainer.processId()), SIGCONT);
    QTRY_VERIFY_WITH_TIMEOUT(panel->history().steps.size() > rows + 2, 60000);
    QCOMPARE(panel->shownStep(), qint64(0));  // the person's step stays
    QTest::mouseClick(panel->followBox(), Qt::LeftButton, {},
                      QPoint(8, panel->followBox()->height() / 2));
    QVERIFY(panel->followsLatest());
    QTRY_COMPARE(panel->shownStep(), panel->history().steps.back());
    QVERIFY(panel->shownStep() > 0);
    trainer.kill();
    QVERIFY(trainer.waitForFinished(60000));
  }
};

QTEST_MAIN(TestHealthPanel)
#include "test_health_panel.moc"
