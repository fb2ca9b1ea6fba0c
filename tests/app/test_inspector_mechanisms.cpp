// The Inspect tab on models whose attention is not softmax probabilities, from untrained tiny
// checkpoints (tests/support/untrained_checkpoint.h) in hand-built run sessions: a
// differential model's weights draw on the diverging map over [-max|s|, max|s|] (white at 0),
// the colour bar, tooltip and hover say "signed: p1 - lambda p2", the scores view goes back
// to the sequential map; its output gate of the selected layer shows per head and token with
// the values core's inspector gives for the text. softmax1's learned sink logits show per
// layer and head as stored in the checkpoint, and its weights are said not to be
// probabilities. A softmax model shows neither strip and the usual colouring.
// ATTNLAB_TEST_SHOTS=DIR saves DIR/inspect-differential.png, the tab on the differential
// model with its gate.
#include "app/gui/panels/inspector_mechanisms.h"
#include "app/gui/panels/inspector_panel.h"
#include "core/checkpoint/checkpoint_store.h"
#include "core/inspect/attention_inspector.h"
#include "tests/app/inspector_test_support.h"
#include "tests/support/heatmap_hover.h"
#include "tests/support/tiny_run_setup.h"
#include "tests/support/untrained_checkpoint.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/colour_maps.h"
#include "widgets/plots/head_value_map.h"
#include "widgets/plots/matrix_heatmap.h"

#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;

namespace {

const QString kText = QStringLiteral("the cat watched the river .");

/// The largest |value| of a matrix.
double largestMagnitude(const widgets::Matrix& m) {
  double top = 0;
  for (const float v : m.values) top = std::max(top, static_cast<double>(std::abs(v)));
  return top;
}

}  // namespace

class TestInspectorMechanisms : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  core::RunConfig m_base;

  /// A run directory holding an untrained checkpoint at step 4 of `config`.
  QString runOf(const core::RunConfig& config, const QString& name) {
    const QString run = m_dir.filePath(name);
    tests::saveUntrainedCheckpoint(config, run.toStdString());
    return run;
  }

  /// `panel` shown on `session`'s checkpoint with kText inspected (every view made).
  static bool inspect(app::InspectorPanel& panel, app::RunSession& session, const QString& run) {
    tests::addCheckpoints(session, run, {4});
    panel.resize(1400, 900);
    panel.show();
    if (!QTest::qWaitForWindowExposed(&panel)) return false;
    panel.setRuns({&session});
    panel.inspect(kText);
    return QTest::qWaitFor(
        [&] {
          return panel.frame() && panel.frame()->text == kText && !panel.frame()->extrasPending;
        },
        60000);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_base = tests::prepareTinyRun(m_dir.path().toStdString());
  }

  void differentialWeightsDrawOnADivergingScale();
  void sinkLogitsShowAsStored();
  void softmaxShowsNeitherStrip();
};

void TestInspectorMechanisms::differentialWeightsDrawOnADivergingScale() {
  core::RunConfig c = m_base;
  c.attention.differential = true;
  c.attention.outputGate = core::OutputGate::Head;
  const QString run = runOf(c, QStringLiteral("differential"));
  app::RunSession session(run, Qt::red);
  app::InspectorPanel panel;
  QVERIFY(inspect(panel, session, run));
  const app::InspectionFrame frame = *panel.frame();
  QVERIFY(frame.maps == core::AttentionMaps::Signed);
  // A head with negative cells (p2 outweighs p1 there).
  int layer = -1, head = -1;
  for (int l = 0; l < frame.layers && layer < 0; ++l)
    for (int h = 0; h < frame.heads && layer < 0; ++h) {
      const auto& v = frame.head(l, h).values;
      if (*std::min_element(v.begin(), v.end()) < 0) layer = l, head = h;
    }
  QVERIFY2(layer >= 0, "no head of the differential model has a negative weight");
  panel.selectHead(layer, head);
  widgets::AttentionHeatmap* map = panel.heatmap();
  QVERIFY(map->diverging());
  QVERIFY(map->dataMin() < 0);
  const double m = largestMagnitude(frame.head(layer, head));
  QVERIFY(std::abs(map->colourUpper() - m) < 1e-6 && std::abs(map->colourLower() + m) < 1e-6);
  // White is 0, blue below, red above.
  QCPColorGradient gradient = widgets::divergingGradient();  // color() is not const
  QCOMPARE(QColor(gradient.color(0.0, QCPRange(-m, m))), QColor(Qt::white));
  const QColor low(gradient.color(-m, QCPRange(-m, m))), high(gradient.color(m, QCPRange(-m, m)));
  QVERIFY(low.blue() > low.red() && high.red() > high.blue());
  QCOMPARE(map->valueLabel(), QStringLiteral("signed: p1 - lambda p2"));
  QVERIFY(map->toolTip().contains(QStringLiteral("p1 - lambda p2")));
  QVERIFY(attnlab::tests::hoverCell(map, 1, 1));
  QVERIFY(panel.findChild<QLabel*>("inspectHover")->text().contains("signed: p1 - lambda p2"));

  // The gate of the selected layer, per head and token, as core's inspector gives it.
  app::InspectorMechanisms* strip = panel.mechanisms();
  QVERIFY(strip->gateShown());
  QVERIFY(!strip->sinksShown());
  const widgets::Matrix gate = strip->gateMap()->panel(0).values;
  QCOMPARE(gate.rows, frame.heads);
  QCOMPARE(gate.cols, frame.length);
  core::AttentionInspector inspector(tests::checkpointFile(run, 4).toStdString());
  const at::Tensor expected = inspector.inspect(kText.toStdString()).gateLayers.at(layer);
  for (int h = 0; h < gate.rows; ++h)
    for (int t = 0; t < gate.cols; ++t)
      QVERIFY(std::abs(gate.at(h, t) - expected[h][t].item<float>()) < 1e-6);
  tests::saveShot(&panel, QStringLiteral("inspect-differential"));

  // The scores are no signed weights: the sequential map again.
  panel.showView(app::InspectView::Scores);
  QTRY_VERIFY_WITH_TIMEOUT(!panel.frame()->scores.empty(), 30000);
  QVERIFY(!map->diverging());
  QVERIFY(map->toolTip().isEmpty());
}

void TestInspectorMechanisms::sinkLogitsShowAsStored() {
  core::RunConfig c = m_base;
  c.attention.normalizer = core::Normalizer::Softmax1;
  const QString run = runOf(c, QStringLiteral("sinks"));
  app::RunSession session(run, Qt::red);
  app::InspectorPanel panel;
  QVERIFY(inspect(panel, session, run));
  app::InspectorMechanisms* strip = panel.mechanisms();
  QVERIFY(strip->sinksShown());
  QVERIFY(!strip->gateShown());
  const widgets::Matrix sinks = strip->sinkMap()->values();
  QCOMPARE(sinks.rows, 2);
  QCOMPARE(sinks.cols, 2);
  const auto data = core::CheckpointStore::load(tests::checkpointFile(run, 4).toStdString());
  for (int l = 0; l < 2; ++l) {
    const at::Tensor stored =
        data.tensors.at("model/layers." + std::to_string(l) + ".attention.normalizer.sink_logit");
    for (int h = 0; h < 2; ++h) QCOMPARE(sinks.at(l, h), stored[h].item<float>());
  }
  widgets::AttentionHeatmap* map = panel.heatmap();
  QVERIFY(!map->diverging());
  QVERIFY(map->valueLabel().contains(QStringLiteral("not probabilities")));
  QVERIFY(map->toolTip().contains(QStringLiteral("need not sum to 1")));
}

void TestInspectorMechanisms::softmaxShowsNeitherStrip() {
  const QString run = runOf(m_base, QStringLiteral("softmax"));
  app::RunSession session(run, Qt::red);
  app::InspectorPanel panel;
  QVERIFY(inspect(panel, session, run));
  QVERIFY(panel.frame()->maps == core::AttentionMaps::Probabilities);
  QVERIFY(!panel.mechanisms()->isVisible());
  QVERIFY(!panel.mechanisms()->gateShown() && !panel.mechanisms()->sinksShown());
  QVERIFY(!panel.heatmap()->diverging());
  QCOMPARE(panel.heatmap()->valueLabel(), QStringLiteral("attention weight"));
  QVERIFY(panel.heatmap()->toolTip().isEmpty());
}

QTEST_MAIN(TestInspectorMechanisms)
#include "test_inspector_mechanisms.moc"
