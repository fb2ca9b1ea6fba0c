// The Inspect tab's views beyond the weights and its logit lens, driven in the real
// MainWindow on a tiny run trained by attnlab-cli. Each view chosen with the selector (the
// keyboard on the combo box) shows in the enlarged map what `attnlab-cli inspect --view
// weights,rollout,norms,lens` writes for the same text and checkpoint (read back with h5py),
// and that file is checked against the model recomputed in numpy float64 from the
// checkpoint's tensors (inspect_views_reference.py); the rollout also equals Abnar &
// Zuidema's formula written out here over the frame's weights and analysis::attentionRollout;
// a head-norm cell equals weight x ||f_h(x_j)|| (Kobayashi et al.'s factorisation) and the
// hover shows both; a layer-norm cell is at most the sum of its heads' norms. The lens panel's
// cells hold the tokenizer's pieces of the CLI's top ids; clicking a token's header masks it
// (the CLI with --mask gives the ranks the column shows), clicking again unmasks it. Each view
// exports (the SVG names it). A lens closed in the splitter is not computed; opened, it is.
// "Compare with" another checkpoint shows that checkpoint's map of the same view.
// ATTNLAB_INSPECT_SHOT_RUN=<run> ATTNLAB_INSPECT_SHOT_DIR=<dir> saves the documentation's
// screenshots of that run, ATTNLAB_INSPECT_BENCH_RUN=<run> times the views on a large model
// (both skipped otherwise).
#include "analysis/attention/attention_rollout.h"
#include "app/gui/inspection_views.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/lens_panel.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "core/tokenizer/sentencepiece_tokenizer.h"
#include "tests/app/inspector_test_support.h"
#include "tests/support/heatmap_hover.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/attention_heatmap.h"
#include "widgets/plots/head_grid.h"
#include "widgets/plots/plot_export.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace attnlab;

namespace {

const QString kText = QStringLiteral("the cat watched the river .");

bool close(double a, double b, double tol = 1e-5) {
  return std::abs(a - b) <= tol * std::max(1.0, std::abs(b));
}

/// The shown matrix's first n x n cells equal `rows` (JSON, n x n).
bool sameTopLeft(const QJsonArray& rows, const widgets::Matrix& shown, double tol = 1e-5) {
  for (int q = 0; q < int(rows.size()); ++q) {
    const QJsonArray row = rows[q].toArray();
    for (int k = 0; k < int(row.size()); ++k)
      if (q >= shown.rows || k >= shown.cols || !close(shown.at(q, k), row[k].toDouble(), tol))
        return false;
  }
  return int(rows.size()) > 0;
}

/// Abnar & Zuidema's rollout written out: A~ = rownorm(mean_h A + I), R_l = A~_l R_(l-1), over
/// the first n positions, in double; returns R after `layer`.
std::vector<double> rolloutByHand(const app::InspectionFrame& f, int layer, int n) {
  std::vector<double> r(static_cast<std::size_t>(n) * n, 0.0);
  for (int l = 0; l <= layer; ++l) {
    std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        double mean = 0;
        for (int h = 0; h < f.heads; ++h) mean += f.head(l, h).at(i, j);
        a[i * n + j] = mean / f.heads + (i == j ? 1.0 : 0.0);
        sum += a[i * n + j];
      }
      for (int j = 0; j < n; ++j) a[i * n + j] /= sum;
    }
    if (l == 0) {
      r = a;
      continue;
    }
    std::vector<double> next(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j) next[i * n + j] += a[i * n + k] * r[k * n + j];
    r = next;
  }
  return r;
}

QString cellText(QTableView* table, int row, int column) {
  return table->model()->index(row, column).data().toString();
}

void clickHeader(QTableView* table, int column) {
  QHeaderView* header = table->horizontalHeader();
  table->scrollTo(table->model()->index(0, column));
  const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                  header->height() / 2);
  QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
}

}  // namespace

class TestInspectorViews : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  /// The run opened in the window, the Inspect tab shown, `text` typed and inspected.
  app::InspectorPanel* openAndInspect(app::MainWindow& window, const QString& run,
                                      const QString& text) {
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return nullptr;
    if (!window.openRun(run) || !window.showView(QStringLiteral("Inspect"))) return nullptr;
    app::InspectorPanel* panel = window.parts().views->inspectorPanel();
    auto* edit = panel->findChild<QLineEdit*>("inspectText");
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
    // The weights come first, then the frame with every view (InspectionFrame::extrasPending).
    const bool shown = QTest::qWaitFor(
        [&] {
          return panel->frame() && panel->frame()->text == text && !panel->frame()->extrasPending;
        },
        60000);
    return shown ? panel : nullptr;
  }

  QString cliViews(const QString& text, const QString& out, const QString& mask = {}) {
    QStringList args = {"inspect", tests::checkpointFile(m_run, 8), "--text", text,
                        "--view",  "weights,rollout,norms,lens",    "--out",  out};
    if (!mask.isEmpty()) args << "--mask" << mask;
    const auto r = tests::runCli(args);
    return r.exitCode == 0 ? QString() : r.err + r.out;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("run");
    const auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void eachViewShowsTheCliValues();
  void theWeightsComeFirst();
  void lensPanelShowsThePiecesAndMasksAColumn();
  void aClosedLensIsNotComputed();
  void theComparedSideShowsTheSameView();
  void screenshotsOfARun();
  void viewSwitchOnALargeRun();
};

void TestInspectorViews::eachViewShowsTheCliValues() {
  app::MainWindow window;
  window.resize(1400, 900);
  app::InspectorPanel* panel = openAndInspect(window, m_run, kText);
  QVERIFY(panel);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->hasBeyondWeights(), 30000);
  const QString h5 = m_dir.filePath("views.h5");
  const QString cliError = cliViews(kText, h5);
  QVERIFY2(cliError.isEmpty(), qPrintable(cliError));
  // The CLI's file against the model recomputed in numpy float64 from the checkpoint.
  const auto ref = tests::runProcess(
      tests::kPython, {QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/app/inspect_views_reference.py"),
                       tests::checkpointFile(m_run, 8), h5});
  QVERIFY2(ref.exitCode == 0, qPrintable(ref.out + ref.err));

  const int layer = 1, head = 1;
  panel->selectHead(layer, head);
  auto* combo = panel->findChild<QComboBox*>("inspectView");
  combo->setFocus();
  const app::InspectionFrame& f = *panel->frame();
  const int n = f.realTokens;

  // weights
  QCOMPARE(panel->view(), app::InspectView::Weights);
  const QJsonArray weights = tests::inspectDataset(h5, "probabilities");
  QVERIFY(sameTopLeft(weights[layer].toArray()[head].toArray(), panel->heatmap()->matrix()));

  // pre-softmax scores: asked for when first shown
  QTest::keyClick(combo, Qt::Key_Down);
  QCOMPARE(panel->view(), app::InspectView::Scores);
  // (a new request: its weights and scores come first, every other view after them)
  QTRY_VERIFY_WITH_TIMEOUT(!panel->frame()->scores.empty() && !panel->frame()->extrasPending,
                           30000);
  QVERIFY(sameTopLeft(tests::inspectDataset(h5, "scores")[layer].toArray()[head].toArray(),
                      panel->heatmap()->matrix()));

  // rollout: one map per layer
  QTest::keyClick(combo, Qt::Key_Down);
  QCOMPARE(panel->view(), app::InspectView::Rollout);
  QCOMPARE(panel->headGrid()->heads(), 1);
  QCOMPARE(panel->headGrid()->layers(), f.layers);
  const widgets::Matrix rollout = panel->heatmap()->matrix();
  QVERIFY(sameTopLeft(tests::inspectDataset(h5, "rollout")[layer].toArray(), rollout));
  const std::vector<double> byHand = rolloutByHand(*panel->frame(), layer, n);
  std::vector<float> stack;
  for (int l = 0; l < f.layers; ++l)
    for (int h = 0; h < f.heads; ++h) {
      const widgets::Matrix m = f.head(l, h);
      stack.insert(stack.end(), m.values.begin(), m.values.end());
    }
  const std::vector<double> analysis =
      analysis::attentionRollout({stack.data(), f.layers, f.heads, f.length}, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      QVERIFY(close(rollout.at(i, j), byHand[i * n + j]));
      QVERIFY(close(rollout.at(i, j), analysis[(layer * n + i) * n + j]));
    }

  // norms per head: ||alpha f|| = alpha ||f||, and the hover shows the weight and ||f||
  QTest::keyClick(combo, Qt::Key_Down);
  QCOMPARE(panel->view(), app::InspectView::HeadNorms);
  QCOMPARE(panel->headGrid()->heads(), f.heads);
  const widgets::Matrix norms = panel->heatmap()->matrix();
  QVERIFY(sameTopLeft(tests::inspectDataset(h5, "norms/head")[layer].toArray()[head].toArray(),
                      norms, 1e-4));
  const QJsonArray values =
      tests::inspectDataset(h5, "norms/value")[layer].toArray()[head].toArray();
  const widgets::Matrix w = f.head(layer, head);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      QVERIFY(close(norms.at(i, j), w.at(i, j) * values[j].toDouble(), 1e-4));
  QVERIFY(attnlab::tests::hoverCell(panel->heatmap(), 2, 1));
  const QString hover = panel->findChild<QLabel*>("inspectHover")->text();
  QVERIFY2(hover.contains(QStringLiteral("weight %1").arg(w.at(2, 1), 0, 'g', 4)) &&
               hover.contains(QStringLiteral("||f(x_j)|| %1").arg(values[1].toDouble(), 0, 'g', 4)),
           qPrintable(hover));

  // layer norms: one map per layer; the norm of the sum is at most the sum of the norms
  QTest::keyClick(combo, Qt::Key_Down);
  QCOMPARE(panel->view(), app::InspectView::LayerNorms);
  QCOMPARE(panel->headGrid()->heads(), 1);
  const widgets::Matrix layerNorms = panel->heatmap()->matrix();
  QVERIFY(sameTopLeft(tests::inspectDataset(h5, "norms/layer")[layer].toArray(), layerNorms, 1e-4));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int h = 0; h < f.heads; ++h)
        sum += app::viewMatrix(f, app::InspectView::HeadNorms, layer, h).at(i, j);
      QVERIFY(layerNorms.at(i, j) <= sum * (1 + 1e-5) + 1e-6);
    }

  // Each view exports, and the figure names it; Alt+1 goes back to the weights. A view of
  // one matrix per layer names no head in the grid's columns and hides its head box.
  for (const app::InspectView view : app::kInspectViewOrder) {
    panel->showView(view);
    const bool perLayer = app::isPerLayerView(view);
    QCOMPARE(panel->headGrid()->columnsPerHead(), !perLayer);
    QCOMPARE(panel->headGrid()->customPlot()->xAxis->label(),
             perLayer ? QStringLiteral("all heads (one per layer)") : QStringLiteral("head"));
    const QString svg = m_dir.filePath(QStringLiteral("view-%1.svg").arg(int(view)));
    QCOMPARE(panel->exportCurrentFigure(svg, {}), QString());
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY2(file.readAll().contains(app::inspectViewName(view).toUtf8()),
             qPrintable(app::inspectViewName(view)));
  }
  QTest::keyClick(combo, Qt::Key_1, Qt::AltModifier);
  QCOMPARE(panel->view(), app::InspectView::Weights);
  QCOMPARE(combo->currentIndex(), 0);
}

// A request that also asks for the views beyond the weights is answered twice: the weights
// alone at once (extrasPending), then the frame with every view, with the same weights.
void TestInspectorViews::theWeightsComeFirst() {
  app::MainWindow window;
  window.resize(1400, 900);
  app::InspectorPanel* panel = openAndInspect(window, m_run, kText);
  QVERIFY(panel);
  const QString text = QStringLiteral("a second text, typed after the first .");
  QSignalSpy frames(&panel->controller(), &app::InspectionController::inspected);
  auto* edit = panel->findChild<QLineEdit*>("inspectText");
  edit->selectAll();
  QTest::keyClicks(edit, text);
  QTest::keyClick(edit, Qt::Key_Return);
  QTRY_COMPARE_WITH_TIMEOUT(frames.size(), 2, 60000);
  const auto first = frames.at(0).at(0).value<app::InspectionFrame>();
  const auto second = frames.at(1).at(0).value<app::InspectionFrame>();
  QCOMPARE(first.text, text);
  QCOMPARE(second.text, text);
  QVERIFY(first.extrasPending);
  QVERIFY(!first.hasBeyondWeights() && !first.lens && first.headNorms.empty());
  QVERIFY(!second.extrasPending);
  QVERIFY(second.hasBeyondWeights() && second.lens && !second.headNorms.empty());
  for (int l = 0; l < first.layers; ++l)
    for (int h = 0; h < first.heads; ++h)
      QCOMPARE(first.head(l, h).values, second.head(l, h).values);
  QVERIFY(!panel->frame()->extrasPending);
  QVERIFY(!panel->findChild<QLabel*>("inspectStatus")->text().contains("follow"));
}

void TestInspectorViews::lensPanelShowsThePiecesAndMasksAColumn() {
  app::MainWindow window;
  window.resize(1400, 900);
  app::InspectorPanel* panel = openAndInspect(window, m_run, kText);
  QVERIFY(panel);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->lens != nullptr, 30000);
  const auto tokenizer =
      core::SentencePieceTokenizer::load((m_run + "/tokenizer.model").toStdString());
  const QString h5 = m_dir.filePath("lens.h5");
  QString cliError = cliViews(kText, h5);
  QVERIFY2(cliError.isEmpty(), qPrintable(cliError));
  const QJsonArray topIds = tests::inspectDataset(h5, "lens/top_ids");
  const QJsonArray topP = tests::inspectDataset(h5, "lens/top_probabilities");
  QTableView* table = panel->lensPanel()->table();
  const QAbstractItemModel* model = table->model();
  QCOMPARE(model->rowCount(), int(topIds.size()));
  QCOMPARE(model->columnCount(), panel->frame()->length);
  for (int r = 0; r < model->rowCount(); ++r)
    for (int t = 0; t < model->columnCount(); ++t) {
      const QStringList lines = cellText(table, r, t).split('\n');
      const int id = topIds[r].toArray()[t].toArray()[0].toInt();
      QCOMPARE(lines[0], QString::fromStdString(tokenizer.idToPiece(id)));
      QCOMPARE(lines[1], QString::number(topP[r].toArray()[t].toArray()[0].toDouble(), 'f', 2));
    }

  // The tooltip: the top 5 with their probabilities, and the own token's rank.
  const QString tip = model->index(1, 2).data(Qt::ToolTipRole).toString();
  const QJsonArray top5 = topIds[1].toArray()[2].toArray();
  QCOMPARE(int(top5.size()), 5);
  for (int k = 0; k < 5; ++k)
    QVERIFY2(tip.contains(QStringLiteral("%1. %2  %3")
                              .arg(k + 1)
                              .arg(QString::fromStdString(tokenizer.idToPiece(top5[k].toInt())))
                              .arg(topP[1].toArray()[2].toArray()[k].toDouble(), 0, 'f', 4)),
             qPrintable(tip));
  const QJsonArray ownRanks = tests::inspectDataset(h5, "lens/target_rank");
  QVERIFY2(tip.contains(QStringLiteral("rank %1 (0 = top)").arg(ownRanks[1].toArray()[2].toInt())),
           qPrintable(tip));

  // Click the third token: it is masked and its column shows the own token's rank.
  const int column = 3;
  const QString own = panel->frame()->pieces[column];
  clickHeader(table, column);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->maskedPositions == QList<int>{column}, 30000);
  QCOMPARE(panel->frame()->pieces[column], QStringLiteral("<mask>"));
  const QString header = model->headerData(column, Qt::Horizontal).toString();
  QVERIFY2(header.contains(own) && header.contains("masked"), qPrintable(header));
  const QString masked = m_dir.filePath("lens-masked.h5");
  cliError = cliViews(kText, masked, QString::number(column));
  QVERIFY2(cliError.isEmpty(), qPrintable(cliError));
  const QJsonArray ranks = tests::inspectDataset(masked, "lens/target_rank");
  for (int r = 0; r < model->rowCount(); ++r) {
    const QString cell = cellText(table, r, column);
    QVERIFY2(cell.endsWith(QStringLiteral("rank %1").arg(ranks[r].toArray()[column].toInt())),
             qPrintable(cell));
    QVERIFY(!cellText(table, r, column - 1).contains("rank"));
  }
  // Clicking again unmasks it (the unmasked frame is kept in memory).
  clickHeader(table, column);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->maskedPositions.isEmpty(), 30000);
  QVERIFY(panel->frame()->cached);
  QCOMPARE(panel->frame()->pieces[column], own);
}

// The lens costs more than the forward pass on a large model: closed in the splitter (the
// handle dragged to the bottom), the next text is inspected without it; opened again, the
// text shown is inspected again with it.
void TestInspectorViews::aClosedLensIsNotComputed() {
  app::MainWindow window;
  window.resize(1400, 900);
  app::InspectorPanel* panel = openAndInspect(window, m_run, kText);
  QVERIFY(panel);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->lens != nullptr, 30000);
  auto* splitter = panel->findChild<QSplitter*>("inspectMapsAndLens");
  // The lens is the splitter's last pane (the mechanisms' strip, hidden here, sits above it).
  const int lens = splitter->count() - 1;
  QSplitterHandle* handle = splitter->handle(lens);
  const auto drag = [&](int dy) {
    const QPoint from = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(from + QPoint(0, dy)),
                     handle->mapToGlobal(QPointF(from + QPoint(0, dy))), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(handle, &move);
    QTest::mouseRelease(handle, Qt::LeftButton, {}, from + QPoint(0, dy));
  };
  drag(2000);
  QCOMPARE(splitter->sizes().value(lens), 0);
  const QString other = QStringLiteral("a dog ran home .");
  panel->inspect(other);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->text == other && !panel->frame()->extrasPending, 30000);
  QVERIFY(!panel->frame()->lens);
  QVERIFY(panel->frame()->hasBeyondWeights());
  drag(-300);
  QVERIFY(splitter->sizes().value(lens) > 0);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->lens != nullptr, 30000);
  QCOMPARE(panel->frame()->text, other);
  QCOMPARE(panel->lensPanel()->table()->model()->columnCount(), panel->frame()->length);
}

// "Compare with" the step-4 checkpoint in the rollout view: the right-hand map is the step-4
// rollout (the formula written out above, over that frame's weights), on one colour scale.
void TestInspectorViews::theComparedSideShowsTheSameView() {
  app::MainWindow window;
  window.resize(1400, 900);
  app::InspectorPanel* panel = openAndInspect(window, m_run, kText);
  QVERIFY(panel);
  auto* view = panel->findChild<QComboBox*>("inspectView");
  view->setFocus();
  QTest::keyClick(view, Qt::Key_Down);
  QTest::keyClick(view, Qt::Key_Down);
  QCOMPARE(panel->view(), app::InspectView::Rollout);
  panel->selectHead(1, 0);
  auto* compare = panel->findChild<QComboBox*>("inspectCompare");
  const int step4 = compare->findData(QStringLiteral("step:4"));
  QVERIFY(step4 > 0);
  compare->setFocus();
  for (int i = 0; i < step4; ++i) QTest::keyClick(compare, Qt::Key_Down);
  QTRY_VERIFY_WITH_TIMEOUT(panel->compareFrame() && panel->compareFrame()->step == 4 &&
                               panel->compareFrame()->hasBeyondWeights() &&
                               panel->compareHeatmap()->isVisible(),
                           30000);
  const app::InspectionFrame& other = *panel->compareFrame();
  const int n = other.realTokens;
  const std::vector<double> byHand = rolloutByHand(other, 1, n);
  const widgets::Matrix shown = panel->compareHeatmap()->matrix();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) QVERIFY(close(shown.at(i, j), byHand[i * n + j]));
  QCOMPARE(panel->compareHeatmap()->colourUpper(), panel->heatmap()->colourUpper());
  QVERIFY(panel->findChild<QLabel*>("inspectCompareStatus")->text().contains("rollout"));
}

void TestInspectorViews::screenshotsOfARun() {
  const QString run = qEnvironmentVariable("ATTNLAB_INSPECT_SHOT_RUN");
  const QString dir = qEnvironmentVariable("ATTNLAB_INSPECT_SHOT_DIR");
  if (run.isEmpty() || dir.isEmpty()) QSKIP("ATTNLAB_INSPECT_SHOT_RUN/DIR not set");
  app::MainWindow window;
  window.resize(1500, 1000);
  const QString text = QStringLiteral("the old man walked slowly to the station .");
  app::InspectorPanel* panel = openAndInspect(window, run, text);
  QVERIFY(panel);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->hasBeyondWeights(), 60000);
  const auto shoot = [&](const QString& name) {
    for (auto* plot : window.findChildren<widgets::PlotWidget*>()) plot->replotNow();
    QVERIFY(window.grab().save(dir + "/" + name));
  };
  panel->selectHead(1, 0);
  panel->showView(app::InspectView::Rollout);
  shoot("app-inspect-rollout.png");
  panel->showView(app::InspectView::HeadNorms);
  panel->selectHead(1, 1);
  QVERIFY(attnlab::tests::hoverCell(panel->heatmap(), 5, 1));
  shoot("app-inspect-norms.png");
  panel->showView(app::InspectView::Weights);
  panel->toggleMask(3);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->maskedPositions == QList<int>{3}, 60000);
  QVERIFY(attnlab::tests::hoverCell(panel->heatmap(), 5, 3));  // "ed" attending to the <mask>
  shoot("app-inspect-lens.png");
}

// ATTNLAB_INSPECT_BENCH_RUN=<run> (e.g. a 12 x 12 x 768 model with 512 positions): a text cut
// to the model's length; prints the engine's time for the plain inspection and for the one
// the tab asks for (norms, rollout, lens too), and the worst of three switches to each view
// until the grid and the enlarged map are drawn. Skipped otherwise.
void TestInspectorViews::viewSwitchOnALargeRun() {
  const QString run = qEnvironmentVariable("ATTNLAB_INSPECT_BENCH_RUN");
  if (run.isEmpty()) QSKIP("ATTNLAB_INSPECT_BENCH_RUN not set");
  QString text;
  for (int i = 0; i < 200; ++i) text += QStringLiteral("the cat that the dog chased sat . ");
  app::MainWindow window;
  window.resize(1600, 1000);
  app::InspectorPanel* panel = openAndInspect(window, run, text);
  QVERIFY(panel);
  QTRY_VERIFY_WITH_TIMEOUT(panel->frame()->hasBeyondWeights(), 300000);
  const app::InspectionFrame frame = *panel->frame();
  // The engine's time for the same warm model: the weights alone, with norms and rollout,
  // and with the logit lens too (each a new text, so nothing comes from memory).
  app::InspectionController engine;
  QSignalSpy done(&engine, &app::InspectionController::inspected);
  engine.inspect(frame.checkpoint, text + " load .");
  QVERIFY(done.wait(300000));
  QStringList what = {"weights alone", "with norms and rollout", "with norms, rollout and lens"};
  for (int i = 0; i < 3; ++i) {
    app::InspectionRequestOptions options;
    options.beyondWeights = i > 0;
    options.lensTop = i == 2 ? 5 : 0;
    engine.inspect(frame.checkpoint, text + QStringLiteral(" %1 .").arg(i), options);
    QVERIFY(done.wait(300000));
    qInfo("%d tokens, %d x %d: engine %.0f ms, %s", frame.length, frame.layers, frame.heads,
          done.last().at(0).value<app::InspectionFrame>().inspectMs, qPrintable(what[i]));
  }
  for (const app::InspectView view : app::kInspectViewOrder) {
    if (view == app::InspectView::Scores) continue;  // asked for when first shown: a pass
    double worst = 0;
    for (int i = 0; i < 3; ++i) {
      panel->showView(app::InspectView::Weights);
      QElapsedTimer timer;
      timer.start();
      panel->showView(view);
      panel->headGrid()->replotNow();
      panel->heatmap()->replotNow();
      worst = std::max(worst, timer.nsecsElapsed() / 1e6);
    }
    qInfo("switch to %s: worst of 3 %.1f ms", qPrintable(app::inspectViewName(view)), worst);
  }
  QElapsedTimer lens;
  lens.start();
  panel->lensPanel()->setFrame(frame);
  panel->lensPanel()->table()->viewport()->repaint();
  qInfo("lens panel filled and drawn (%d x %d cells) in %.1f ms",
        panel->lensPanel()->table()->model()->rowCount(),
        panel->lensPanel()->table()->model()->columnCount(), lens.nsecsElapsed() / 1e6);
}

QTEST_MAIN(TestInspectorViews)
#include "test_inspector_views.moc"
