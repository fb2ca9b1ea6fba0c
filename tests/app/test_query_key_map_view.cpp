// The Query-key map view in the real MainWindow on a tiny run trained by attnlab-cli: a right
// click on a head of the Inspect tab's grid (the window system's context-menu event) opens the
// tab's menu, not the menu every plot has; its entry opens a window that makes the map off the
// GUI thread and draws one point per query and per key of the sample; the query/key colouring
// has the two series, the text match highlights exactly the tokens whose piece holds the text
// (case-insensitive), the position colouring puts each point in its position's bin, hovering a
// point names its token, position and sentence; the layer's entry gives one panel per head.
// Cancel stops a map being made and the window says so; closing a window while it computes
// cancels and deletes it; a layer outside the model is refused by name. The map borrows the
// model the Inspect tab loaded for that checkpoint (the window's ModelCache loads it once).
// ATTNLAB_QK_SHOT_DIR=<dir> saves screenshots of the windows there; with
// ATTNLAB_QK_SHOT_RUN=<run> also of every head of that run's layer ATTNLAB_QK_SHOT_LAYER (0 when
// unset; skipped without a run).
#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/model_cache.h"
#include "app/gui/main_window.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/query_key_map_window.h"
#include "app/gui/plot_context_menu.h"
#include "app/gui/view_tabs.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/heatmap_hover.h"
#include "tests/support/tiny_run_setup.h"
#include "widgets/plots/head_grid.h"
#include "widgets/plots/scatter_plot.h"

#include <qcustomplot.h>
#include <QAction>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QWindow>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>

using namespace attnlab;

namespace {

/// Saves `window` as <ATTNLAB_QK_SHOT_DIR>/<name>.png when that variable is set.
void saveShot(QWidget* window, const QString& name) {
  const QString dir = qEnvironmentVariable("ATTNLAB_QK_SHOT_DIR");
  if (dir.isEmpty()) return;
  for (auto* plot : window->findChildren<widgets::PlotWidget*>()) plot->replotNow();
  window->grab().save(dir + QLatin1Char('/') + name + QStringLiteral(".png"));
}

/// Points drawn in panel `panel`, over every series.
int pointsDrawn(widgets::ScatterPlot* plot, int panel) {
  int n = 0;
  for (int s = 0; s < plot->panel(panel).series.size(); ++s)
    n += plot->graph(panel, s)->data()->size();
  return n;
}

/// Every point of series `series` (pointOf), as a set.
std::set<int> pointsOf(const app::QueryKeyMapWindow& w, int series) {
  std::set<int> out;
  const int count = w.plot()->panel(0).series[series].x.size();
  for (int i = 0; i < count; ++i) out.insert(w.pointOf(series, i));
  return out;
}

/// The point of panel 0 farthest from its nearest neighbour (in pixels) and that distance.
std::pair<int, double> loneliestPoint(const app::QueryKeyMapWindow& w) {
  widgets::ScatterPlot* plot = w.plot();
  QCPAxisRect* rect = plot->panelRect(0);
  std::vector<QPointF> pixels;
  std::vector<int> points;
  for (int s = 0; s < plot->panel(0).series.size(); ++s) {
    const auto& series = plot->panel(0).series[s];
    for (int i = 0; i < series.x.size(); ++i) {
      pixels.emplace_back(rect->axis(QCPAxis::atBottom)->coordToPixel(series.x[i]),
                          rect->axis(QCPAxis::atLeft)->coordToPixel(series.y[i]));
      points.push_back(w.pointOf(s, i));
    }
  }
  std::pair<int, double> best{-1, 0.0};
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    double nearest = 1e300;
    for (std::size_t j = 0; j < pixels.size(); ++j)
      if (j != i)
        nearest = std::min(
            nearest, std::hypot(pixels[i].x() - pixels[j].x(), pixels[i].y() - pixels[j].y()));
    if (nearest > best.second && rect->rect().contains(pixels[i].toPoint()))
      best = {points[i], nearest};
  }
  return best;
}

app::QueryKeyMapRequest request(const QString& run, std::optional<qint64> step, int layer, int head,
                                int maxTokens = 10000) {
  app::QueryKeyMapRequest r;
  r.runDirectory = run;
  r.step = step;
  r.layer = layer;
  r.head = head;
  r.maxTokens = maxTokens;
  return r;
}

}  // namespace

class TestQueryKeyMapView : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

  /// The run open in `window` on the Inspect tab, with its first inspection shown.
  app::InspectorPanel* openInspect(app::MainWindow& window) {
    window.resize(1300, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) return nullptr;
    if (!window.openRun(m_run) || !window.showView(QStringLiteral("Inspect"))) return nullptr;
    app::InspectorPanel* panel = window.parts().views->inspectorPanel();
    if (!QTest::qWaitFor([&] { return panel->frame().has_value(); }, 60000)) {
      const auto* status = panel->findChild<QLabel*>(QStringLiteral("inspectStatus"));
      qWarning("no inspection frame; the tab says: %s",
               status ? qPrintable(status->text()) : "(no status label)");
      return nullptr;
    }
    panel->headGrid()->replotNow();
    return panel;
  }

  /// Right-clicks (layer, head) in the grid and triggers the menu entry starting with
  /// `entry`; returns the map window that opened.
  app::QueryKeyMapWindow* openFromGrid(app::MainWindow& window, app::InspectorPanel* panel,
                                       int layer, int head, const QString& entry) {
    QWidget* canvas = panel->headGrid()->customPlot();
    const QPoint at = tests::pixelOfHead(panel->headGrid(), layer, head);
    if (at.x() < 0) return nullptr;
    const auto before = window.findChildren<app::QueryKeyMapWindow*>();
    // A right click as the window system delivers it (through the app's plot menu filter).
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &event);
    QMenu* menu = panel->headMenu();
    if (!menu || !QTest::qWaitFor([&] { return menu->isVisible(); }, 5000)) return nullptr;
    // The tab's menu, not the one every plot has (Export figure..., Copy image).
    if (window.parts().plotMenu->menu() && window.parts().plotMenu->menu()->isVisible())
      return nullptr;
    QAction* action = nullptr;
    for (QAction* a : menu->actions())
      if (a->text().startsWith(entry)) action = a;
    if (!action) return nullptr;
    action->trigger();
    menu->close();
    for (auto* w : window.findChildren<app::QueryKeyMapWindow*>())
      if (!before.contains(w)) return w;
    return nullptr;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    // Settings of this test only.
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
    QStandardPaths::setTestModeEnabled(true);
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_run = m_dir.filePath("run");
    const auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  void aHeadsMapFromTheGridMenu();
  void everyHeadOfALayer();
  void theMapBorrowsTheInspectTabsModel();
  void cancelAndCloseWhileComputing();
  void aLayerOutsideTheModelIsRefused();
  void screenshotOfARun();
};

void TestQueryKeyMapView::aHeadsMapFromTheGridMenu() {
  app::MainWindow window;
  app::InspectorPanel* panel = openInspect(window);
  QVERIFY(panel);
  app::QueryKeyMapWindow* map =
      openFromGrid(window, panel, 1, 0, QStringLiteral("Query-key map of layer 1 head 0..."));
  QVERIFY(map);
  QVERIFY(QTest::qWaitForWindowExposed(map));
  QTRY_VERIFY_WITH_TIMEOUT(map->result() != nullptr, 120000);
  const auto& sample = map->result()->sample;
  QCOMPARE(map->result()->step, qint64(8));  // the checkpoint the slider shows
  QCOMPARE(sample.layer, 1);
  QCOMPARE(int(sample.maps.size()), 1);
  const int n = static_cast<int>(sample.tokens());
  QVERIFY(n > 20 && n <= 10000);
  widgets::ScatterPlot* plot = map->plot();
  plot->replotNow();
  QCOMPARE(plot->panelCount(), 1);
  QCOMPARE(pointsDrawn(plot, 0), 2 * n);
  QVERIFY(plot->panel(0).xLabel.contains("principal component 1 of the normalised queries"));
  QVERIFY(plot->panel(0).yLabel.contains("principal component 2 of the normalised queries"));
  const auto& coords = sample.maps[0].map.coords;
  // Query / key: two series, the queries then the keys at the map's coordinates.
  QCOMPARE(plot->panel(0).series.size(), 2);
  QCOMPARE(plot->graph(0, 0)->data()->size(), n);
  QCOMPARE(plot->graph(0, 1)->data()->size(), n);
  for (int i : {0, n / 2, n - 1}) {
    QCOMPARE(map->pointOf(1, i), n + i);
    QCOMPARE(plot->graph(0, 1)->data()->at(i)->key, coords[2 * (n + i)]);
    QCOMPARE(plot->graph(0, 1)->data()->at(i)->value, coords[2 * (n + i) + 1]);
  }
  QVERIFY2(map->summaryText().contains(
               QString::number(100.0 * sample.maps[0].map.explained, 'f', 1) + "% of the variance"),
           qPrintable(map->summaryText()));
  QVERIFY(map->summaryText().contains("normalisation scale s = "));
  saveShot(map, QStringLiteral("qk-map-query-key"));

  // Hovering a point names its token, its position and its sentence.
  const auto [point, distance] = loneliestPoint(*map);
  QVERIFY2(distance > 2.0, qPrintable(QString::number(distance)));
  const int token = point % n;
  QCPAxisRect* rect = plot->panelRect(0);
  const QPoint pixel(qRound(rect->axis(QCPAxis::atBottom)->coordToPixel(coords[2 * point])),
                     qRound(rect->axis(QCPAxis::atLeft)->coordToPixel(coords[2 * point + 1])));
  // Through the map's window, as the window system delivers a move (the widget overload
  // would place the cursor, which reaches whichever window is on top there).
  QWindow* handle = map->windowHandle();
  QTest::mouseMove(handle, handle->mapFromGlobal(plot->customPlot()->mapToGlobal(pixel)));
  const QString piece = QString::fromStdString(sample.pieces[token]);
  const QString expected = QStringLiteral("%1 `%2` (position %3) in: ")
                               .arg(point < n ? "query" : "key", piece)
                               .arg(sample.position[token]);
  QTRY_VERIFY2(plot->hoverText().startsWith(expected), qPrintable(plot->hoverText()));
  const QString sentence = QString::fromStdString(sample.sentences[sample.sequence[token]]);
  QVERIFY2(plot->hoverText().contains(sentence.left(40)), qPrintable(plot->hoverText()));

  // Text match: typed into the box (upper case: the match ignores case), exactly the tokens
  // whose piece holds the text are highlighted, as queries and as keys.
  QString text;
  for (const auto& p : sample.pieces) {
    const QString q = QString::fromStdString(p).remove(QChar(0x2581));
    if (q.size() >= 1 && q.front().isLetter() && !QString::fromStdString(p).startsWith('<')) {
      text = q.left(2).toUpper();
      break;
    }
  }
  QVERIFY(!text.isEmpty());
  auto* edit = map->findChild<QLineEdit*>("qkMapMatchText");
  edit->setFocus();
  QTest::keyClicks(edit, text);
  QCOMPARE(map->colourBy(), app::QueryKeyMapWindow::ColourBy::TextMatch);
  std::set<int> expectedHits, expectedOthers;
  for (int p = 0; p < 2 * n; ++p)
    (QString::fromStdString(sample.pieces[p % n]).contains(text, Qt::CaseInsensitive)
         ? expectedHits
         : expectedOthers)
        .insert(p);
  QVERIFY(!expectedHits.empty() && !expectedOthers.empty());
  QCOMPARE(plot->panel(0).series.size(), 2);
  QVERIFY(plot->panel(0).series[1].name.contains(text));
  QCOMPARE(pointsOf(*map, 1), expectedHits);
  QCOMPARE(pointsOf(*map, 0), expectedOthers);
  QCOMPARE(pointsDrawn(plot, 0), 2 * n);
  saveShot(map, QStringLiteral("qk-map-text-match"));

  // Position: each point in the bin of its token's position; every point drawn once.
  auto* combo = map->findChild<QComboBox*>("qkMapColourBy");
  combo->setCurrentIndex(combo->findText("token position"));
  QCOMPARE(map->colourBy(), app::QueryKeyMapWindow::ColourBy::Position);
  QVERIFY(plot->panel(0).series.size() > 1);
  QCOMPARE(pointsDrawn(plot, 0), 2 * n);
  for (int s = 0; s < plot->panel(0).series.size(); ++s) {
    const QString name = plot->panel(0).series[s].name;  // "positions 0-3 (120)"
    const QStringList range = name.section(' ', 1, 1).split('-');
    for (const int p : pointsOf(*map, s)) {
      const auto position = sample.position[p % n];
      QVERIFY2(position >= range.front().toInt() && position <= range.back().toInt(),
               qPrintable(name));
    }
  }
  saveShot(map, QStringLiteral("qk-map-position"));

  // Export figure writes the map (SVG: vector, with the axis labels in it).
  const QString svg = m_dir.filePath("qk-map.svg");
  QCOMPARE(map->exportFigure(svg), QString());
  QFile file(svg);
  QVERIFY(file.open(QIODevice::ReadOnly));
  QVERIFY(file.readAll().contains("principal component 1"));
}

void TestQueryKeyMapView::everyHeadOfALayer() {
  app::MainWindow window;
  app::InspectorPanel* panel = openInspect(window);
  QVERIFY(panel);
  app::QueryKeyMapWindow* map = openFromGrid(
      window, panel, 0, 1, QStringLiteral("Query-key maps of layer 0 (every head)..."));
  QVERIFY(map);
  QTRY_VERIFY_WITH_TIMEOUT(map->result() != nullptr, 120000);
  const auto& sample = map->result()->sample;
  QCOMPARE(sample.head, -1);
  QCOMPARE(int(sample.maps.size()), 2);
  const int n = static_cast<int>(sample.tokens());
  QCOMPARE(map->plot()->panelCount(), 2);
  for (int p = 0; p < 2; ++p) {
    QCOMPARE(pointsDrawn(map->plot(), p), 2 * n);
    QVERIFY(map->plot()->panel(p).title.startsWith(QStringLiteral("head %1:").arg(p)));
    QVERIFY(map->summaryText().contains(QStringLiteral("Head %1:").arg(p)));
  }
  saveShot(map, QStringLiteral("qk-map-every-head"));
  // The window goes when closed (it deletes itself: nothing is being made).
  QPointer<app::QueryKeyMapWindow> guard(map);
  map->close();
  QTRY_VERIFY(guard.isNull());
}

void TestQueryKeyMapView::theMapBorrowsTheInspectTabsModel() {
  app::MainWindow window;
  app::InspectorPanel* panel = openInspect(window);
  QVERIFY(panel);
  app::ModelCache& models = *window.parts().analysis->models();
  const std::string checkpoint = panel->frame()->checkpoint.toStdString();
  QVERIFY(models.contains(checkpoint));
  QCOMPARE(models.loadsOf(checkpoint), std::size_t(1));
  app::QueryKeyMapWindow* map =
      openFromGrid(window, panel, 0, 0, QStringLiteral("Query-key map of layer 0 head 0..."));
  QVERIFY(map);
  QTRY_VERIFY_WITH_TIMEOUT(map->result() != nullptr, 120000);
  // The map's checkpoint is the one the tab shows, and its model was not loaded again.
  QCOMPARE(map->result()->step, panel->frame()->step);
  QCOMPARE(models.loadsOf(map->result()->checkpoint.toStdString()), std::size_t(1));
  QCOMPARE(models.loadsOf(checkpoint), std::size_t(1));
  // Nor for the tab's next text.
  QSignalSpy inspected(panel, &app::InspectorPanel::inspected);
  panel->inspect(QStringLiteral("a text the tab has not run yet"));
  QVERIFY(inspected.wait(60000));
  QCOMPARE(panel->frame()->text, QStringLiteral("a text the tab has not run yet"));
  QVERIFY(!panel->frame()->cached);
  QCOMPARE(models.loadsOf(checkpoint), std::size_t(1));
  QVERIFY(models.size() <= app::ModelCache::kDefaultModels);
}

void TestQueryKeyMapView::cancelAndCloseWhileComputing() {
  {
    app::QueryKeyMapWindow map;
    map.show();
    QVERIFY(QTest::qWaitForWindowExposed(&map));
    QSignalSpy ended(&map, &app::QueryKeyMapWindow::ended);
    map.start(request(m_run, 8, 1, 0, 1000000000));
    QVERIFY(map.isComputing());
    auto* cancel = map.findChild<QPushButton*>("cancelQkMapButton");
    QVERIFY(cancel->isVisible());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(ended.wait(60000));
    QCOMPARE(ended.at(0).at(0).toBool(), false);  // not made
    QCOMPARE(ended.at(0).at(1).toBool(), true);   // cancelled
    QVERIFY2(map.statusText().startsWith("Cancelled"), qPrintable(map.statusText()));
    QVERIFY(map.result() == nullptr);
    QVERIFY(!cancel->isVisible());
    QVERIFY(!map.isComputing());
  }
  // Closed while computing: cancelled, and the window deletes itself once its thread stopped.
  auto* map = new app::QueryKeyMapWindow;
  map->setDeleteWhenClosed(true);
  map->show();
  QPointer<app::QueryKeyMapWindow> guard(map);
  map->start(request(m_run, 8, 0, -1));
  QVERIFY(map->isComputing());
  map->close();
  QTRY_VERIFY_WITH_TIMEOUT(guard.isNull(), 60000);
}

void TestQueryKeyMapView::aLayerOutsideTheModelIsRefused() {
  app::QueryKeyMapWindow map;
  QSignalSpy ended(&map, &app::QueryKeyMapWindow::ended);
  map.start(request(m_run, std::nullopt, 5, 0));
  QVERIFY(ended.wait(60000));
  QCOMPARE(ended.at(0).at(0).toBool(), false);
  QCOMPARE(ended.at(0).at(1).toBool(), false);
  QVERIFY2(map.statusText().contains("layer 5") && map.statusText().contains("out of range"),
           qPrintable(map.statusText()));
}

void TestQueryKeyMapView::screenshotOfARun() {
  const QString run = qEnvironmentVariable("ATTNLAB_QK_SHOT_RUN");
  if (run.isEmpty() || qEnvironmentVariable("ATTNLAB_QK_SHOT_DIR").isEmpty())
    QSKIP("set ATTNLAB_QK_SHOT_RUN and ATTNLAB_QK_SHOT_DIR for the screenshots of a run");
  app::QueryKeyMapWindow map;
  map.show();
  QVERIFY(QTest::qWaitForWindowExposed(&map));
  map.start(request(run, std::nullopt, qEnvironmentVariableIntValue("ATTNLAB_QK_SHOT_LAYER"), -1));
  QTRY_VERIFY_WITH_TIMEOUT(map.result() != nullptr, 300000);
  saveShot(&map, QStringLiteral("qk-map-run-every-head"));
  map.setColourBy(app::QueryKeyMapWindow::ColourBy::Position);
  saveShot(&map, QStringLiteral("qk-map-run-every-head-position"));
}

QTEST_MAIN(TestQueryKeyMapView)
#include "test_query_key_map_view.moc"
