// Curves panel: one plot per scalar in reading order with units, each run a series in its
// colour, live batches appended (not rebuilt), shared controls, selection changes, hidden
// panels catching up when shown.
#include "app/gui/panels/curves_panel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QtTest>

#include <cmath>
#include <memory>
#include <random>

using namespace attnlab::app;
namespace widgets = attnlab::widgets;

namespace {

constexpr double kStart = 1.7e9;  // Unix seconds of the first point

// `count` points from step `first` (one every `every` steps) shaped like the named scalar.
ScalarPoints curve(const QString& name, int first, int count, int every = 1, unsigned seed = 1,
                   double scale = 1.0) {
  std::mt19937 rng(seed + static_cast<unsigned>(first));
  std::normal_distribution<double> noise(0.0, 1.0);
  ScalarPoints p;
  for (int i = 0; i < count; ++i) {
    const double step = first + i * every;
    const double t = step / 2000.0;
    double v = 0;
    if (name.endsWith("accuracy"))
      v = std::min(0.95, 0.05 + 0.55 * (1 - std::exp(-3 * t)) + 0.02 * noise(rng));
    else if (name == "train/learning_rate")
      v = step < 200 ? 5e-4 * step / 200 : 5e-4 * std::max(0.0, 1 - (step - 200) / 1800);
    else if (name == "train/grad_norm")
      v = 1.2 + 3.0 * std::exp(-4 * t) + 0.25 * std::abs(noise(rng));
    else if (name == "train/tokens_per_second")
      v = 2600 + 90 * noise(rng);
    else if (name.startsWith("guidance/weight"))
      v = std::max(0.0, 1.0 - t);
    else
      v = scale * (3.1 + 7.2 * std::exp(-5 * t)) + 0.12 * noise(rng);
    p.steps.push_back(step);
    p.values.push_back(v);
    p.wallTimes.push_back(kStart + 0.8 * step);
  }
  return p;
}

RunUpdate batch(const QStringList& names, int first, int count, unsigned seed = 1,
                double scale = 1.0) {
  RunUpdate u;
  for (const QString& n : names) u.scalars[n] = curve(n, first, count, 1, seed, scale);
  return u;
}

const QStringList kTrainScalars = {"train/loss", "train/accuracy", "train/learning_rate",
                                   "train/grad_norm", "train/tokens_per_second"};

bool showPanel(CurvesPanel& panel) {
  panel.resize(1100, 800);
  panel.show();
  return QTest::qWaitForWindowExposed(&panel);
}

}  // namespace

class TestCurvesPanel : public QObject {
  Q_OBJECT
 private slots:
  void onePlotPerScalarInReadingOrderWithUnits() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/guided", QColor("#d62728"));
    RunUpdate u = batch({"eval/loss", "asa/token_kl", "train/loss", "guidance/weight",
                         "train/tokens_per_second", "eval/accuracy", "train/total_loss",
                         "guidance/prev", "train/accuracy", "train/learning_rate"},
                        1, 40);
    u.runName = QStringLiteral("guided");
    u.scalars["train/grad_norm"] = {};  // declared, nothing logged yet: no empty plot
    run.applyUpdate(u);
    panel.setRuns({&run});
    const QStringList expected = {"train/loss",
                                  "train/total_loss",
                                  "train/accuracy",
                                  "train/learning_rate",
                                  "train/tokens_per_second",
                                  "eval/loss",
                                  "eval/accuracy",
                                  "asa/token_kl",
                                  "guidance/prev",
                                  "guidance/weight"};
    QCOMPARE(panel.scalarNames(), expected);
    QVERIFY(panel.plotFor("train/grad_norm") == nullptr);
    for (const QString& name : expected) {
      widgets::CurvePlot* plot = panel.plotFor(name);
      QVERIFY2(plot != nullptr, qPrintable(name));
      QCOMPARE(plot->title(), name);
      QVERIFY(plot->isVisible());
      QCOMPARE(plot->runs(), QStringList{"guided"});
      QCOMPARE(plot->pointCount("guided"), std::size_t(40));
    }
    QCOMPARE(panel.plotFor("train/loss")->customPlot()->yAxis->label(), QString("loss (nats)"));
    QCOMPARE(panel.plotFor("eval/accuracy")->customPlot()->yAxis->label(),
             QString("accuracy (fraction)"));
    QCOMPARE(panel.plotFor("train/tokens_per_second")->customPlot()->yAxis->label(),
             QString("throughput (tokens/s)"));
    QCOMPARE(panel.plotFor("asa/token_kl")->customPlot()->yAxis->label(),
             QString("KL divergence (nats)"));
    // Rising accuracy keeps the top right corner free of the legend.
    QCOMPARE(panel.plotFor("train/accuracy")->legendAlignment(), Qt::AlignBottom | Qt::AlignRight);
    QCOMPARE(panel.plotFor("train/loss")->legendAlignment(), Qt::AlignTop | Qt::AlignRight);
    // Two columns: the first two plots side by side, the third below the first.
    const QRect a = panel.plotFor(expected[0])->geometry();
    const QRect b = panel.plotFor(expected[1])->geometry();
    const QRect c = panel.plotFor(expected[2])->geometry();
    QCOMPARE(a.top(), b.top());
    QVERIFY(b.left() > a.right());
    QCOMPARE(c.left(), a.left());
    QVERIFY(c.top() > a.bottom());
    // The declared scalar gets its plot with its first values.
    RunUpdate more;
    more.scalars["train/grad_norm"] = curve("train/grad_norm", 41, 5);
    run.applyUpdate(more);
    QTRY_VERIFY(panel.plotFor("train/grad_norm") != nullptr);
    QCOMPARE(panel.scalarNames().indexOf("train/grad_norm"), 4);
    QCOMPARE(panel.plotFor("train/grad_norm")->pointCount("guided"), std::size_t(5));
  }

  void liveBatchesAreAppendedNotRebuilt() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/live", QColor("#1f77b4"));
    RunUpdate first = batch(kTrainScalars, 1, 50);
    first.runName = QStringLiteral("live");
    run.applyUpdate(first);
    panel.setRuns({&run});
    widgets::CurvePlot* loss = panel.plotFor("train/loss");
    QVERIFY(loss != nullptr);
    QCOMPARE(loss->pointCount("live"), std::size_t(50));
    run.applyUpdate(batch(kTrainScalars, 51, 30));
    QTRY_COMPARE(loss->pointCount("live"), std::size_t(80));
    QCOMPARE(panel.plotFor("train/loss"), loss);  // the same plot, appended to
    for (const QString& name : kTrainScalars)
      QCOMPARE(panel.plotFor(name)->pointCount("live"), std::size_t(80));
    // The appended curve equals the one a fresh plot draws from all 80 points at once.
    widgets::CurvePlot once;
    once.resize(loss->size());
    const ScalarPoints& all = run.scalars().at("train/loss");
    once.setSmoothing(loss->smoothing());
    once.setSeries("live", all.steps, all.values, all.wallTimes);
    loss->replotNow();
    once.replotNow();
    QCOMPARE(loss->displayedLine("live").second.back(), once.displayedLine("live").second.back());

    // Many batches between two frames: one redraw, not one per batch.
    int replots = 0;
    connect(loss->customPlot(), &QCustomPlot::afterReplot, this, [&replots] { ++replots; });
    for (int i = 0; i < 20; ++i) run.applyUpdate(batch({"train/loss"}, 81 + i * 5, 5));
    QCOMPARE(loss->pointCount("live"), std::size_t(80));  // nothing drawn synchronously
    QTRY_COMPARE(loss->pointCount("live"), std::size_t(180));
    QTRY_VERIFY(replots >= 1);
    QCoreApplication::processEvents();
    QVERIFY2(replots <= 2, qPrintable(QString::number(replots)));
  }

  void hiddenPanelCatchesUpWhenShown() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/bg", QColor("#2ca02c"));
    run.applyUpdate(batch({"train/loss"}, 1, 10));
    panel.setRuns({&run});
    widgets::CurvePlot* loss = panel.plotFor("train/loss");
    panel.hide();
    run.applyUpdate(batch({"train/loss", "eval/loss"}, 11, 10));
    QCoreApplication::processEvents();
    QCOMPARE(loss->pointCount("bg"), std::size_t(10));  // hidden: nothing drawn
    QVERIFY(panel.plotFor("eval/loss") == nullptr);
    panel.show();
    QCOMPARE(loss->pointCount("bg"), std::size_t(20));  // caught up on show
    QVERIFY(panel.plotFor("eval/loss") != nullptr);
    // A selection made while hidden is built on show too.
    panel.hide();
    panel.setRuns({});
    QCOMPARE(panel.scalarNames(), (QStringList{"train/loss", "eval/loss"}));
    panel.show();
    QVERIFY(panel.scalarNames().isEmpty());
    auto* placeholder = panel.findChild<QLabel*>("curvesPlaceholder");
    QVERIFY(placeholder->isVisible());
    QVERIFY(placeholder->text().contains("Select a run"));
  }

  void eachRunIsASeriesInItsColour() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession a("/tmp/runs/a", QColor("#1f77b4")), b("/tmp/runs/b", QColor("#ff7f0e"));
    RunUpdate ua = batch({"train/loss", "eval/loss"}, 1, 30);
    ua.runName = QStringLiteral("baseline");
    RunUpdate ub = batch({"train/loss", "guidance/loss"}, 1, 20, 2);
    ub.runName = QStringLiteral("guided");
    a.applyUpdate(ua);
    b.applyUpdate(ub);
    panel.setRuns({&a, &b});
    QCOMPARE(panel.plotFor("train/loss")->runs(), (QStringList{"baseline", "guided"}));
    QCOMPARE(panel.plotFor("eval/loss")->runs(), QStringList{"baseline"});
    QCOMPARE(panel.plotFor("guidance/loss")->runs(), QStringList{"guided"});
    widgets::CurvePlot* loss = panel.plotFor("train/loss");
    QCOMPARE(loss->seriesColour("baseline"), QColor("#1f77b4"));
    QCOMPARE(loss->seriesColour("guided"), QColor("#ff7f0e"));
    b.setColour(QColor("#9467bd"));
    QCOMPARE(loss->seriesColour("guided"), QColor("#9467bd"));
    QCOMPARE(panel.plotFor("guidance/loss")->seriesColour("guided"), QColor("#9467bd"));
    // The colour survives a theme change.
    panel.setTheme(widgets::Theme::dark());
    QCOMPARE(loss->seriesColour("baseline"), QColor("#1f77b4"));

    // Selecting one run drops the other's series and plots.
    panel.setRuns({&b});
    QCOMPARE(panel.scalarNames(), (QStringList{"train/loss", "guidance/loss"}));
    QCOMPARE(panel.plotFor("train/loss")->runs(), QStringList{"guided"});
    // Two runs with one name stay apart in the legend.
    RunSession twin("/tmp/runs/b-again", QColor("#8c564b"));
    RunUpdate ut = batch({"train/loss"}, 1, 10);
    ut.runName = QStringLiteral("guided");
    twin.applyUpdate(ut);
    panel.setRuns({&b, &twin});
    QCOMPARE(panel.plotFor("train/loss")->runs().size(), 2);
    QVERIFY(panel.seriesName(&b) != panel.seriesName(&twin));
    QVERIFY(panel.seriesName(&twin).contains("b-again"));
  }

  void aDestroyedRunLeavesThePlots() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession keep("/tmp/runs/keep", QColor("#1f77b4"));
    auto gone = std::make_unique<RunSession>("/tmp/runs/gone", QColor("#ff7f0e"));
    keep.applyUpdate(batch({"train/loss"}, 1, 10));
    gone->applyUpdate(batch({"train/loss", "eval/loss"}, 1, 10));
    panel.setRuns({&keep, gone.get()});
    QCOMPARE(panel.scalarNames().size(), 2);
    gone.reset();
    QTRY_COMPARE(panel.scalarNames(), QStringList{"train/loss"});
    QCOMPARE(panel.plotFor("train/loss")->runs(), QStringList{"keep"});
  }

  void controlsDriveEveryPlot() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/c", QColor("#1f77b4"));
    run.applyUpdate(batch({"train/loss", "train/accuracy"}, 1, 100));
    panel.setRuns({&run});
    auto* slider = panel.findChild<QSlider*>("curvesSmoothing");
    auto* value = panel.findChild<QLabel*>("curvesSmoothingValue");
    QCOMPARE(slider->value(), 60);
    QCOMPARE(value->text(), QString("0.60"));
    QCOMPARE(panel.plotFor("train/loss")->smoothing(), 0.6);
    slider->setValue(0);
    QCOMPARE(value->text(), QString("0.00"));
    QTRY_COMPARE(panel.plotFor("train/loss")->smoothing(), 0.0);
    QCOMPARE(panel.plotFor("train/accuracy")->smoothing(), 0.0);
    // Unsmoothed, the drawn line goes through the raw values.
    widgets::CurvePlot* loss = panel.plotFor("train/loss");
    loss->replotNow();
    QCOMPARE(loss->displayedLine("c").second.back(), run.scalars().at("train/loss").values.back());
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(value->text(), QString("0.99"));
    QTRY_COMPARE(loss->smoothing(), 0.99);

    auto* logY = panel.findChild<QCheckBox*>("curvesLogY");
    logY->click();
    QVERIFY(loss->logY());
    QVERIFY(panel.plotFor("train/accuracy")->logY());
    QCOMPARE(loss->customPlot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    logY->click();
    QVERIFY(!loss->logY());

    auto* axis = panel.findChild<QComboBox*>("curvesXAxis");
    axis->setCurrentIndex(axis->findText("Relative time"));
    QCOMPARE(loss->xAxisKind(), widgets::CurveXAxis::RelativeTime);
    loss->replotNow();
    QCOMPARE(loss->displayedLine("c").first.front(), 0.0);
    // A plot created later takes the panel's settings.
    run.applyUpdate(batch({"eval/loss"}, 1, 10));
    QTRY_VERIFY(panel.plotFor("eval/loss") != nullptr);
    QCOMPARE(panel.plotFor("eval/loss")->xAxisKind(), widgets::CurveXAxis::RelativeTime);
    QCOMPARE(panel.plotFor("eval/loss")->smoothing(), 0.99);

    // Fit shows all data again after a zoom.
    axis->setCurrentIndex(axis->findText("Step"));
    loss->customPlot()->xAxis->setRange(10, 20);
    panel.findChild<QPushButton*>("curvesFit")->click();
    QCOMPARE(loss->customPlot()->xAxis->range().lower, 1.0);
    QCOMPARE(loss->customPlot()->xAxis->range().upper, 100.0);
  }

  void screenshot() {
    CurvesPanel panel;
    QVERIFY(showPanel(panel));
    panel.resize(1280, 900);
    RunSession base("/tmp/runs/baseline", QColor("#1f77b4"));
    RunSession guided("/tmp/runs/guided", QColor("#d62728"));
    RunUpdate ub = batch(kTrainScalars, 1, 1500, 1);
    ub.runName = QStringLiteral("baseline");
    ub.scalars["eval/loss"] = curve("eval/loss", 100, 15, 100, 5);
    ub.scalars["eval/accuracy"] = curve("eval/accuracy", 100, 15, 100, 6);
    RunUpdate ug = batch(kTrainScalars, 1, 1200, 2, 0.92);
    ug.runName = QStringLiteral("guided-prev-next");
    ug.scalars["eval/loss"] = curve("eval/loss", 100, 12, 100, 7, 0.92);
    ug.scalars["guidance/loss"] = curve("guidance/loss", 1, 1200, 1, 3, 0.2);
    ug.scalars["guidance/weight"] = curve("guidance/weight", 1, 1200, 1, 3);
    base.applyUpdate(ub);
    guided.applyUpdate(ug);
    panel.setRuns({&base, &guided});
    QTRY_COMPARE(panel.scalarNames().size(), 9);
    for (const QString& name : panel.scalarNames()) panel.plotFor(name)->replotNow();
    const QImage shot = panel.grab().toImage();
    QVERIFY(shot.save("/tmp/panel_curves.png"));
  }
};

QTEST_MAIN(TestCurvesPanel)
#include "test_curves_panel.moc"
