// Attention panel: snapshot frames are asked for when steps arrive and drawn when they come
// (stale ones ignored), the grid and the enlarged head show the chosen sequence, a click on
// a thumbnail enlarges that head, follow-latest and the slider, the hover read-out, the
// guidance overlay of guided runs only.
#include "app/gui/panels/attention_panel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QtTest>

#include <cmath>
#include <memory>
#include <random>
#include <tuple>

using namespace attnlab::app;
namespace widgets = attnlab::widgets;

namespace {

// Probe sequences as the run log stores them: pieces padded to T with <pad>.
std::vector<QStringList> probeTokens(int length) {
  const std::vector<QStringList> words = {
      {"<s>", "▁the", "▁cat", "▁sat", "▁on", "▁the", "▁mat", ".", "</s>"},
      {"<s>", "▁a", "▁small", "▁bird", "▁sang", "▁from", "▁the", "▁old", "▁tree", "▁at", "▁da",
       "wn", ".", "</s>"},
      {"<s>",  "▁when", "▁the",  "▁rain", "▁stopped", ",",     "▁the", "▁children",
       "▁ran", "▁out",  "side",  "▁to",   "▁play",    "▁in",   "▁the", "▁pu",
       "dd",   "les",   "▁near", "▁the",  "▁river",   "▁bank", ".",    "</s>"},
  };
  std::vector<QStringList> out;
  for (QStringList s : words) {
    s = s.mid(0, length);
    while (s.size() < length) s << "<pad>";
    out.push_back(s);
  }
  return out;
}

int realLength(const QStringList& pieces) {
  int n = static_cast<int>(pieces.size());
  while (n > 0 && pieces[n - 1] == "<pad>") --n;
  return n;
}

// Heads with the structures real ones show (previous / next token, first token, diagonal,
// broad), sharper at later steps; padding keys get nothing. Rows are distributions.
SnapshotFrame frame(std::int64_t step, int layers, int heads,
                    const std::vector<QStringList>& probe) {
  SnapshotFrame f;
  f.step = step;
  f.layers = layers;
  f.sequences = static_cast<int>(probe.size());
  f.heads = heads;
  f.length = static_cast<int>(probe[0].size());
  const int t = f.length;
  f.probabilities.assign(static_cast<std::size_t>(layers) * f.sequences * heads * t * t, 0.0f);
  const float sharp = 1.0f + std::log2(float(step) + 2.0f);
  for (int l = 0; l < layers; ++l)
    for (int b = 0; b < f.sequences; ++b)
      for (int h = 0; h < heads; ++h) {
        std::mt19937 rng(unsigned(step * 7919 + l * 131 + b * 17 + h));
        std::uniform_real_distribution<float> noise(0.0f, 1.0f);
        const int n = realLength(probe[static_cast<std::size_t>(b)]);
        const int kind = (l * heads + h) % 5;
        float* m = f.probabilities.data() +
                   ((static_cast<std::size_t>(l) * f.sequences + b) * heads + h) * t * t;
        for (int q = 0; q < t; ++q) {
          double sum = 0;
          for (int k = 0; k < n; ++k) {
            float logit = 0.8f * noise(rng);
            switch (kind) {
              case 0:
                logit += (k == q - 1 || (q == 0 && k == 0)) ? sharp : 0.0f;
                break;
              case 1:
                logit += (k == q + 1 || (q == n - 1 && k == q)) ? sharp : 0.0f;
                break;
              case 2:
                logit += (k == 0 ? sharp : 0.0f) + (k == n - 1 ? 0.5f * sharp : 0.0f);
                break;
              case 3:
                logit += 0.8f * sharp * std::exp(-0.5f * float((q - k) * (q - k)));
                break;
              default:
                logit += 0.6f * std::sin(0.5f * float(k + l)) + 0.3f * float(h);
                break;
            }
            m[q * t + k] = std::exp(logit);
            sum += m[q * t + k];
          }
          for (int k = 0; k < n; ++k) m[q * t + k] = float(m[q * t + k] / sum);
        }
      }
  return f;
}

// The first batch of a run with snapshots on.
RunUpdate metadata(const QString& name, int length) {
  RunUpdate u;
  u.runName = name;
  u.probeTokens = probeTokens(length);
  return u;
}

// Guidance for [L][H] heads: `guided` maps (layer, head) to a pattern index.
void addGuidance(RunUpdate& u, int layers, int heads, int length,
                 const std::vector<std::tuple<int, int, int>>& guided) {
  std::vector<std::vector<int>> of(static_cast<std::size_t>(layers),
                                   std::vector<int>(static_cast<std::size_t>(heads), -1));
  for (auto [l, h, p] : guided) of[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)] = p;
  const auto probe = probeTokens(length);
  std::vector<std::vector<widgets::Matrix>> targets(2);
  for (const auto& pieces : probe) {
    const int n = realLength(pieces);
    widgets::Matrix prev(length, length, 0.0f), next(length, length, 0.0f);
    for (int q = 0; q < n; ++q) {
      prev.at(q, std::max(0, q - 1)) = 1.0f;
      next.at(q, std::min(n - 1, q + 1)) = 1.0f;
    }
    targets[0].push_back(prev);
    targets[1].push_back(next);
  }
  u.guidancePatternOfHead = of;
  u.guidanceTargets = targets;
  u.guidancePatternNames = QStringList{"prev", "next"};
}

RunUpdate steps(std::vector<std::int64_t> s) {
  RunUpdate u;
  u.snapshotSteps = std::move(s);
  return u;
}

// The middle of the pixels where `accept(x, y)` holds, (-1, -1) when none does.
template <class F>
QPoint centreWhere(QWidget* plot, F accept) {
  long long sx = 0, sy = 0, n = 0;
  for (int y = 0; y < plot->height(); y += 2)
    for (int x = 0; x < plot->width(); x += 2)
      if (accept(QPointF(x, y))) sx += x, sy += y, ++n;
  return n ? QPoint(int(sx / n), int(sy / n)) : QPoint(-1, -1);
}

QPoint headPixel(widgets::HeadGrid* grid, int layer, int head) {
  grid->replotNow();
  return centreWhere(grid->customPlot(), [&](QPointF p) {
    int l = -1, h = -1;
    return grid->headAt(p, &l, &h) && l == layer && h == head;
  });
}

QPoint cellPixel(widgets::AttentionHeatmap* map, int query, int key) {
  map->replotNow();
  return centreWhere(map->customPlot(), [&](QPointF p) {
    int q = -1, k = -1;
    return map->cellAt(p, &q, &k) && q == query && k == key;
  });
}

bool showPanel(AttentionPanel& panel) {
  panel.resize(1200, 700);
  panel.show();
  return QTest::qWaitForWindowExposed(&panel);
}

constexpr int kLayers = 4, kHeads = 4, kLength = 16;

}  // namespace

class TestAttentionPanel : public QObject {
  Q_OBJECT
 private slots:
  void framesAreAskedForAndDrawn() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/attn", QColor("#1f77b4"));
    run.applyUpdate(metadata("attn", kLength));
    panel.setRuns({&run});
    auto* placeholder = panel.findChild<QLabel*>("attentionPlaceholder");
    QVERIFY(placeholder->isVisible());
    QVERIFY2(placeholder->text().contains("No attention snapshots yet"),
             qPrintable(placeholder->text()));

    QSignalSpy requested(&run, &RunSession::snapshotRequested);
    run.applyUpdate(steps({0, 1, 2}));
    QTRY_COMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toLongLong(), 2);  // follows the newest
    QVERIFY(!placeholder->isVisible());
    QCOMPARE(panel.currentStep(), 2);
    QCOMPARE(panel.shownStep(), -1);  // asked, not there yet
    QVERIFY(panel.findChild<QLabel*>("attentionStepLabel")->text().contains("step 2"));

    const auto probe = probeTokens(kLength);
    const SnapshotFrame f2 = frame(2, kLayers, kHeads, probe);
    run.addSnapshot(f2);
    QTRY_COMPARE(panel.shownStep(), 2);
    widgets::HeadGrid* grid = panel.headGrid();
    QCOMPARE(grid->layers(), kLayers);
    QCOMPARE(grid->heads(), kHeads);
    // The enlarged head is (0, 0) of sequence 0, cut to its 9 real tokens.
    widgets::AttentionHeatmap* map = panel.heatmap();
    QCOMPARE(run.probeLength(0), 9);
    QCOMPARE(map->queries(), 9);
    QCOMPARE(map->keys(), 9);
    QVERIFY(map->title().contains("Layer 0 · head 0 · step 2"));

    // Hovering reads the frame's value and names both tokens under the heatmap.
    QSignalSpy hovered(map, &widgets::AttentionHeatmap::cellHovered);
    const QPoint at = cellPixel(map, 3, 2);
    QVERIFY(at.x() >= 0);
    map->hoverAt(at);
    QCOMPARE(hovered.count(), 1);
    const float expected = f2.head(0, 0, 0, 9).at(3, 2);
    QCOMPARE(hovered.at(0).at(2).toDouble(), double(expected));
    const QString text = panel.hoverText();
    QVERIFY2(text.contains("“▁sat”") && text.contains("“▁cat”") && text.contains("→"),
             qPrintable(text));
    QVERIFY2(text.contains(QString::number(expected, 'f', 4)), qPrintable(text));

    // Another sequence: its own length and matrix.
    auto* sequences = panel.findChild<QComboBox*>("attentionSequence");
    QCOMPARE(sequences->count(), 3);
    QVERIFY2(sequences->itemText(0).contains("the cat sat"), qPrintable(sequences->itemText(0)));
    QVERIFY2(sequences->itemText(1).contains("a small bird"), qPrintable(sequences->itemText(1)));
    sequences->setCurrentIndex(1);
    QCOMPARE(panel.sequence(), 1);
    QCOMPARE(map->queries(), 14);
    QCOMPARE(map->keys(), 14);
    map->hoverAt(cellPixel(map, 5, 4));
    QCOMPARE(hovered.last().at(2).toDouble(), double(f2.head(0, 1, 0, 14).at(5, 4)));
    QVERIFY2(panel.hoverText().contains("“▁from”"), qPrintable(panel.hoverText()));

    // A differential-attention run's signed maps: a diverging scale, labelled as signed; a
    // probability frame again switches it back.
    QVERIFY(!map->diverging());
    SnapshotFrame signedFrame = frame(3, kLayers, kHeads, probe);
    for (std::size_t i = 0; i < signedFrame.probabilities.size(); i += 3)
      signedFrame.probabilities[i] = -signedFrame.probabilities[i];
    signedFrame.signedWeights = true;
    run.applyUpdate(steps({0, 1, 2, 3}));
    run.addSnapshot(signedFrame);
    QTRY_COMPARE(panel.shownStep(), 3);
    QVERIFY(map->diverging());
    QVERIFY(grid->diverging());
    QCOMPARE(map->valueLabel(), QString("signed: p1 - lambda p2"));
    run.applyUpdate(steps({0, 1, 2, 3, 4}));
    run.addSnapshot(frame(4, kLayers, kHeads, probe));
    QTRY_COMPARE(panel.shownStep(), 4);
    QVERIFY(!map->diverging());
    QVERIFY(!grid->diverging());
  }

  void clickingAThumbnailEnlargesThatHead() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/attn", QColor("#1f77b4"));
    run.applyUpdate(metadata("attn", kLength));
    run.applyUpdate(steps({0, 1}));
    const SnapshotFrame f1 = frame(1, kLayers, kHeads, probeTokens(kLength));
    run.addSnapshot(f1);  // already read: drawn without a request
    QSignalSpy requested(&run, &RunSession::snapshotRequested);
    panel.setRuns({&run});
    QCOMPARE(panel.shownStep(), 1);
    QCOMPARE(requested.count(), 0);

    widgets::HeadGrid* grid = panel.headGrid();
    const QPoint at = headPixel(grid, 2, 3);
    QVERIFY(at.x() >= 0);
    QTest::mouseClick(grid->customPlot(), Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(panel.selectedLayer(), 2);
    QCOMPARE(panel.selectedHead(), 3);
    QCOMPARE(grid->selectedLayer(), 2);
    widgets::AttentionHeatmap* map = panel.heatmap();
    QVERIFY2(map->title().contains("Layer 2 · head 3"), qPrintable(map->title()));
    QSignalSpy hovered(map, &widgets::AttentionHeatmap::cellHovered);
    map->hoverAt(cellPixel(map, 4, 3));
    QCOMPARE(hovered.count(), 1);
    QCOMPARE(hovered.at(0).at(2).toDouble(), double(f1.head(2, 0, 3, 9).at(4, 3)));
    QVERIFY(f1.head(2, 0, 3, 9).at(4, 3) != f1.head(0, 0, 0, 9).at(4, 3));
    // The head stays enlarged on the next step.
    run.applyUpdate(steps({0, 1, 2}));
    run.addSnapshot(frame(2, kLayers, kHeads, probeTokens(kLength)));
    QTRY_COMPARE(panel.shownStep(), 2);
    QVERIFY2(map->title().contains("Layer 2 · head 3 · step 2"), qPrintable(map->title()));
  }

  void followLatestAndTheSlider() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/attn", QColor("#1f77b4"));
    const auto probe = probeTokens(kLength);
    run.applyUpdate(metadata("attn", kLength));
    run.applyUpdate(steps({0, 1, 2}));
    run.addSnapshot(frame(2, kLayers, kHeads, probe));
    panel.setRuns({&run});
    QCOMPARE(panel.shownStep(), 2);
    QVERIFY(panel.followLatest());
    auto* slider = panel.findChild<QSlider*>("attentionStepSlider");
    auto* follow = panel.findChild<QCheckBox*>("attentionFollow");
    QSignalSpy requested(&run, &RunSession::snapshotRequested);

    // A new snapshot step: the slider jumps to it and its frame is asked for.
    run.applyUpdate(steps({0, 1, 2, 4}));
    QTRY_COMPARE(requested.count(), 1);
    QCOMPARE(requested.last().at(0).toLongLong(), 4);
    QCOMPARE(panel.currentStep(), 4);
    QCOMPARE(slider->maximum(), 3);
    QCOMPARE(slider->value(), 3);
    run.addSnapshot(frame(4, kLayers, kHeads, probe));
    QTRY_COMPARE(panel.shownStep(), 4);

    // Moving the slider by hand turns following off; new steps then leave it alone.
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_Left);
    QCOMPARE(slider->value(), 2);
    QVERIFY(!panel.followLatest());
    QVERIFY(!follow->isChecked());
    QCOMPARE(panel.currentStep(), 2);
    QTRY_COMPARE(panel.shownStep(), 2);  // still cached: no new read
    run.applyUpdate(steps({0, 1, 2, 4, 8}));
    QTRY_COMPARE(slider->maximum(), 4);
    QCOMPARE(panel.currentStep(), 2);
    QCOMPARE(slider->value(), 2);
    QVERIFY(!requested.contains(QVariantList{qint64(8)}));

    // Following again goes to the newest.
    follow->click();
    QCOMPARE(panel.currentStep(), 8);
    QTRY_COMPARE(requested.last().at(0).toLongLong(), 8);

    // A frame that arrives after the slider left its step is not drawn.
    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(panel.currentStep(), 0);
    QTRY_COMPARE(requested.last().at(0).toLongLong(), 0);
    run.addSnapshot(frame(8, kLayers, kHeads, probe));
    QCoreApplication::processEvents();
    QCOMPARE(panel.shownStep(), 2);
    run.addSnapshot(frame(0, kLayers, kHeads, probe));
    QTRY_COMPARE(panel.shownStep(), 0);
    QVERIFY(panel.heatmap()->title().contains("step 0"));
  }

  void hiddenPanelReadsNothingUntilShown() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    RunSession run("/tmp/runs/attn", QColor("#1f77b4"));
    run.applyUpdate(metadata("attn", kLength));
    panel.setRuns({&run});
    panel.hide();
    QSignalSpy requested(&run, &RunSession::snapshotRequested);
    run.applyUpdate(steps({0, 1}));
    QCoreApplication::processEvents();
    QCOMPARE(requested.count(), 0);
    panel.show();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toLongLong(), 1);
  }

  void guidanceTargetOnlyForGuidedRuns() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    const auto probe = probeTokens(kLength);
    RunSession plain("/tmp/runs/plain", QColor("#1f77b4"));
    plain.applyUpdate(metadata("plain", kLength));
    plain.applyUpdate(steps({0}));
    plain.addSnapshot(frame(0, kLayers, kHeads, probe));
    panel.setRuns({&plain});
    QCOMPARE(panel.shownStep(), 0);
    auto* guidance = panel.findChild<QCheckBox*>("attentionGuidance");
    QVERIFY(guidance->isHidden());

    RunSession guided("/tmp/runs/guided", QColor("#d62728"));
    RunUpdate meta = metadata("guided", kLength);
    addGuidance(meta, kLayers, kHeads, kLength, {{1, 2, 0}, {3, 0, 1}});
    guided.applyUpdate(meta);
    guided.applyUpdate(steps({0}));
    guided.addSnapshot(frame(0, kLayers, kHeads, probe));
    panel.setRuns({&plain, &guided});  // the first selected is shown
    QCOMPARE(panel.run(), &plain);
    panel.setRuns({&guided, &plain});
    QCOMPARE(panel.run(), &guided);
    QCOMPARE(panel.shownStep(), 0);
    QVERIFY(!guidance->isHidden());
    QVERIFY(guidance->isChecked());

    widgets::AttentionHeatmap* map = panel.heatmap();
    QVERIFY(!map->title().contains("guided"));  // head (0, 0) is not guided
    QTest::mouseClick(panel.headGrid()->customPlot(), Qt::LeftButton, Qt::NoModifier,
                      headPixel(panel.headGrid(), 1, 2));
    QVERIFY2(map->title().contains("guided: prev"), qPrintable(map->title()));
    // The overlay is there: the read-out names the target of the cell.
    QVERIFY2(map->hoverAt(cellPixel(map, 4, 3)).contains("target 1"), qPrintable(map->readout()));
    guidance->click();
    QVERIFY(!map->hoverAt(cellPixel(map, 4, 3)).contains("target"));
    guidance->click();
    QTest::mouseClick(panel.headGrid()->customPlot(), Qt::LeftButton, Qt::NoModifier,
                      headPixel(panel.headGrid(), 3, 0));
    QVERIFY2(map->title().contains("guided: next"), qPrintable(map->title()));
    QVERIFY(map->hoverAt(cellPixel(map, 4, 5)).contains("target 1"));
  }

  void aDestroyedRunLeavesAPlaceholder() {
    AttentionPanel panel;
    QVERIFY(showPanel(panel));
    auto run = std::make_unique<RunSession>("/tmp/runs/attn", QColor("#1f77b4"));
    run->applyUpdate(metadata("attn", kLength));
    run->applyUpdate(steps({0}));
    run->addSnapshot(frame(0, kLayers, kHeads, probeTokens(kLength)));
    panel.setRuns({run.get()});
    QCOMPARE(panel.shownStep(), 0);
    run.reset();
    auto* placeholder = panel.findChild<QLabel*>("attentionPlaceholder");
    QTRY_VERIFY(placeholder->isVisible());
    QVERIFY(placeholder->text().contains("Select a run"));
    QVERIFY(panel.run() == nullptr);
  }

  void screenshot() {
    AttentionPanel panel;
    panel.resize(1400, 820);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const int length = 24, layers = 6, heads = 8;
    const auto probe = probeTokens(length);
    RunSession run("/tmp/runs/guided", QColor("#d62728"));
    RunUpdate meta = metadata("guided-prev-next", length);
    addGuidance(meta, layers, heads, length, {{0, 0, 0}, {0, 1, 1}, {1, 0, 0}, {1, 1, 1}});
    run.applyUpdate(meta);
    run.applyUpdate(steps({0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 500}));
    run.addSnapshot(frame(500, layers, heads, probe));
    panel.setRuns({&run});
    panel.findChild<QComboBox*>("attentionSequence")->setCurrentIndex(2);
    QTest::mouseClick(panel.headGrid()->customPlot(), Qt::LeftButton, Qt::NoModifier,
                      headPixel(panel.headGrid(), 1, 0));
    panel.heatmap()->hoverAt(cellPixel(panel.heatmap(), 8, 7));
    panel.headGrid()->replotNow();
    panel.heatmap()->replotNow();
    QVERIFY(panel.grab().save("/tmp/panel_attention.png"));
  }
};

QTEST_MAIN(TestAttentionPanel)
#include "test_attention_panel.moc"
