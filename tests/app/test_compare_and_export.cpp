// Comparing runs and exporting from the real main window, on two tiny runs trained, analysed
// and probed by attnlab-cli (a plain one and a RealFormer + ASA one). The Compare tab's table
// is checked against the run log read by h5py and the reports parsed by Qt's JSON reader
// (independently of the project's readers); the comparison violins against analysis.json;
// the Figures menu, the plots' context menu and File > Export report are driven as a person
// would, and what they write is opened and checked (PNG size, SVG text, PDF rendered by
// pdftoppm, the report's index and files against attnlab-cli export --report).
// LibTorch (engine_random.h) before Qt: Qt's `slots` macro breaks its headers.
#include "core/runtime/engine_random.h"

#include "app/gui/analysis_controller.h"
#include "app/gui/jobs/job_bar.h"
#include "app/gui/main_window.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/analysis_panel.h"
#include "app/gui/panels/analysis_run_options.h"
#include "app/gui/panels/compare_panel.h"
#include "app/gui/panels/curves_panel.h"
#include "app/gui/panels/export_figure_dialog.h"
#include "app/gui/panels/figure_view.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/plot_context_menu.h"
#include "app/gui/report_export_controller.h"
#include "app/gui/view_tabs.h"
#include "app/gui/window_exports.h"
#include "core/config/config_loader.h"
#include "tests/support/cli_process.h"
#include "tests/support/json_file.h"
#include "tests/support/tiny_run_setup.h"
#include "tests/support/window_tabs.h"
#include "widgets/plots/bar_chart.h"
#include "widgets/plots/curve_plot.h"
#include "widgets/plots/matrix_heatmap.h"
#include "widgets/plots/scatter_plot.h"
#include "widgets/plots/violin_grid.h"

#include <qcustomplot.h>

#include <QAction>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

using namespace attnlab;

using attnlab::tests::readJson;

namespace {

QStringList svgTexts(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QStringList texts;
  QXmlStreamReader xml(&f);
  while (!xml.atEnd())
    if (xml.readNext() == QXmlStreamReader::Characters && !xml.isWhitespace())
      texts << xml.text().toString();
  return texts;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Per layer, the median of the heads' median entropies, from analysis.json.
std::vector<double> layerMedians(const QJsonObject& analysis) {
  std::map<int, std::vector<double>> byLayer;
  for (const auto& h : analysis["per_head"].toArray()) {
    const QJsonObject head = h.toObject();
    byLayer[head["layer"].toInt()].push_back(head["entropy"].toObject()["median"].toDouble());
  }
  std::vector<double> out;
  for (auto& [layer, values] : byLayer) out.push_back(median(values));
  return out;
}

/// Every file under `dir`, relative, sorted.
QStringList filesUnder(const QString& dir) {
  QStringList files;
  QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) files << QDir(dir).relativeFilePath(it.next());
  files.sort();
  return files;
}

void closeMessageBoxes(QWidget& window) {
  for (QMessageBox* box : window.findChildren<QMessageBox*>())
    if (box->isVisible()) box->close();
}

}  // namespace

class TestCompareAndExport : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_plain, m_variant;

  QString path(const QString& name) const { return m_dir.filePath(name); }

  /// Opens both runs and selects them as a person does: click one, Ctrl+click the other.
  void openAndSelectBoth(app::MainWindow& window) {
    QVERIFY(window.openRun(m_plain) != nullptr);
    QVERIFY(window.openRun(m_variant) != nullptr);
    QListWidget* list = window.parts().runsPanel->list();
    QCOMPARE(list->count(), 2);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(0)).center());
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      list->visualItemRect(list->item(1)).center());
    QCOMPARE(window.parts().runsPanel->selectedRuns().size(), 2);
  }

  /// Fills the export dialog open now and presses Export.
  void fillExportDialog(app::ExportFigureDialog* dialog, const QString& file, int w, int h,
                        int dpi) {
    QVERIFY(dialog != nullptr);
    QLineEdit* edit = dialog->pathEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, file);
    dialog->widthBox()->setValue(w);
    dialog->heightBox()->setValue(h);
    dialog->dpiBox()->setValue(dpi);
    dialog->accept();
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, path("settings"));
    QStandardPaths::setTestModeEnabled(true);
    QSettings().setValue(QStringLiteral("paths/runsFolder"), path("runs"));
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = path("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    m_plain = path("plain");
    m_variant = path("realformer");
    const QStringList variant{"--set", "attention.residual=\"sum\"",
                              "--set", "attention.asa.enabled=true",
                              "--set", "run.name=\"realformer\""};
    for (const auto& [dir, extra] : {std::pair{m_plain, QStringList{"--set", "run.name=\"plain\""}},
                                     std::pair{m_variant, variant}}) {
      auto r = tests::runCli(QStringList{"train", "--config", toml, "--run-dir", dir, "--plain"} +
                             extra);
      QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
      r = tests::runCli({"analyze", dir});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
      r = tests::runCli({"probe", "coref", dir, "--size", "40", "--plain"});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    }
  }

  void comparesTwoRunsInATable() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndSelectBoth(window);
    QSignalSpy ready(window.parts().views->comparePanel(), &app::ComparePanel::summariesReady);
    tests::clickTab(window, "Compare");
    QVERIFY(ready.count() > 0 || ready.wait(20000));
    QTableWidget* table = window.parts().views->comparePanel()->table();
    QCOMPARE(table->rowCount(), 2);

    auto columnOf = [table](const QString& header) {
      for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == header) return c;
      return -1;
    };
    const int evalLoss = columnOf("Eval loss (nats)");
    const int bestHead = columnOf("Probe best head");
    const int mean = columnOf("Probe mean accuracy");
    const int entropyL0 = columnOf("Median entropy L0 (nats)");
    QVERIFY(evalLoss > 0 && bestHead > 0 && mean > 0 && entropyL0 > 0);
    for (int row = 0; row < 2; ++row) {
      const QString name = table->item(row, 0)->text();
      const QString dir = name == "plain" ? m_plain : m_variant;
      // The last eval/loss row, read by h5py.
      const auto py =
          tests::runProcess(tests::kPython, {"-c",
                                             "import h5py,sys; f=h5py.File(sys.argv[1],'r'); "
                                             "print(repr(float(f['scalars/eval/loss/value'][-1])))",
                                             dir + "/run.h5"});
      QVERIFY2(py.exitCode == 0, qPrintable(py.err));
      QVERIFY(std::abs(table->item(row, evalLoss)->data(Qt::DisplayRole).toDouble() -
                       py.out.trimmed().toDouble()) < 1e-4);
      const QJsonObject coref = readJson(dir + "/analysis/coref-step-8/coref.json");
      QVERIFY(!coref.isEmpty());
      const QJsonObject best = coref["best_head"].toObject();
      QCOMPARE(table->item(row, bestHead)->text(),
               QStringLiteral("L%1-H%2").arg(best["layer"].toInt()).arg(best["head"].toInt()));
      QVERIFY(std::abs(table->item(row, mean)->data(Qt::DisplayRole).toDouble() -
                       coref["mean_over_heads"].toDouble()) < 1e-3);
      const std::vector<double> medians =
          layerMedians(readJson(dir + "/analysis/step-8/analysis.json"));
      QVERIFY(!medians.empty());
      QVERIFY(std::abs(table->item(row, entropyL0)->data(Qt::DisplayRole).toDouble() - medians[0]) <
              1e-3);
    }
    // Clicking the header sorts numerically.
    QHeaderView* header = table->horizontalHeader();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(evalLoss) + 5, header->height() / 2));
    const double first = table->item(0, evalLoss)->data(Qt::DisplayRole).toDouble();
    const double second = table->item(1, evalLoss)->data(Qt::DisplayRole).toDouble();
    QVERIFY(header->sortIndicatorOrder() == Qt::AscendingOrder ? first <= second : first >= second);

    // The table as CSV: a header line and one line per run.
    const QString csv = path("comparison.csv");
    QCOMPARE(window.parts().views->comparePanel()->exportTable(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()).trimmed().split('\n').size(), 3);
    QVERIFY(window.parts()
                .views->comparePanel()
                ->exportTable(path("comparison.txt"))
                .contains(".csv or .md"));
  }

  void violinsOfBothRunsShareOneScale() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndSelectBoth(window);
    tests::clickTab(window, "Compare");
    app::ComparePanel* compare = window.parts().views->comparePanel();
    QVERIFY(compare->showComparison("realformer-fig4"));
    QCOMPARE(compare->figureViews().size(), 1);
    auto* violins = qobject_cast<widgets::ViolinGrid*>(compare->figureViews().front()->plot());
    QVERIFY2(violins != nullptr, qPrintable(compare->figureViews().front()->error()));
    // Layer by layer, one row per run (the selection order: plain, then realformer).
    const QJsonArray plain =
        readJson(m_plain + "/analysis/step-8/analysis.json")["per_head"].toArray();
    const QJsonArray rf =
        readJson(m_variant + "/analysis/step-8/analysis.json")["per_head"].toArray();
    QCOMPARE(violins->rows() * violins->heads(), int(plain.size() + rf.size()));
    for (const auto& [json, offset] : {std::pair{plain, 0}, std::pair{rf, 1}}) {
      for (const auto& h : json) {
        const QJsonObject head = h.toObject();
        QCOMPARE(violins->summary(head["layer"].toInt() * 2 + offset, head["head"].toInt()).median,
                 head["entropy"].toObject()["median"].toDouble());
      }
    }
    // One value scale for every row.
    const QCPRange top = violins->rowRect(0)->axis(QCPAxis::atLeft)->range();
    for (int r = 1; r < violins->rows(); ++r)
      QCOMPARE(violins->rowRect(r)->axis(QCPAxis::atLeft)->range(), top);

    // Table 8: best head and mean per run, as coref.json says.
    QVERIFY(compare->showComparison("guidance-table8"));
    auto* bars = qobject_cast<widgets::BarChart*>(compare->figureViews().front()->plot());
    QVERIFY(bars != nullptr);
    QCOMPARE(bars->categoryCount(), 2);
    QCOMPARE(bars->value(0, 1),
             readJson(m_variant + "/analysis/coref-step-8/coref.json")["best_head"]
                 .toObject()["accuracy"]
                 .toDouble());

    // ASA side by side: the ASA run draws, the plain one says what is missing; one y range.
    QVERIFY(compare->showComparison("side:asa-fig5"));
    QCOMPARE(compare->figureViews().size(), 2);
    QVERIFY(compare->figureViews()[0]->plot() == nullptr);
    QVERIFY2(compare->figureViews()[0]->error().contains("asa"),
             qPrintable(compare->figureViews()[0]->error()));
    QVERIFY(compare->figureViews()[1]->plot() != nullptr);

    // One run selected: the tab says how to compare.
    window.parts().runsPanel->selectOnly(window.parts().runs->find(m_plain));
    QVERIFY(compare->findChild<QLabel*>("compareHint")->isVisible());
  }

  // The summaries beyond the weights of both runs in the Compare tab: rollout and lens
  // overlaid (one line per run, each the run's own report), weights against norms side by
  // side on one -1..1 scale.
  void beyondWeightsSummariesOfBothRuns() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndSelectBoth(window);
    tests::clickTab(window, "Compare");
    app::ComparePanel* compare = window.parts().views->comparePanel();
    const QJsonObject plain = readJson(m_plain + "/analysis/step-8/analysis.json");
    const QJsonObject rf = readJson(m_variant + "/analysis/step-8/analysis.json");

    const int rollout = compare->comparisonBox()->findData("rollout-spread");
    QVERIFY(rollout >= 0);
    compare->comparisonBox()->setCurrentIndex(rollout);
    QCOMPARE(compare->currentComparison(), QString("rollout-spread"));
    auto* lines = qobject_cast<widgets::ScatterPlot*>(compare->figureViews().front()->plot());
    QVERIFY2(lines != nullptr, qPrintable(compare->figureViews().front()->error()));
    QCOMPARE(lines->panel(0).series.size(), qsizetype(2));
    for (const auto& [json, s] : {std::pair{plain, 0}, std::pair{rf, 1}}) {
      const QJsonArray layers =
          json["beyond_weights"].toObject()["rollout"].toObject()["per_layer"].toArray();
      for (int l = 0; l < layers.size(); ++l)
        QCOMPARE(lines->panel(0).series[s].y[l], layers[l].toObject()["spread"].toDouble());
    }

    QVERIFY(compare->showComparison("logit-lens"));
    lines = qobject_cast<widgets::ScatterPlot*>(compare->figureViews().front()->plot());
    QVERIFY(lines != nullptr);
    const QJsonArray rfRows = rf["beyond_weights"].toObject()["lens"].toObject()["rows"].toArray();
    for (int r = 0; r < rfRows.size(); ++r)
      QCOMPARE(lines->panel(0).series[1].y[r], rfRows[r].toObject()["accuracy"].toDouble());

    QVERIFY(compare->showComparison("side:norm-weight-correlation"));
    QCOMPARE(compare->figureViews().size(), 2);
    for (app::FigureView* view : compare->figureViews()) {
      auto* heatmap = qobject_cast<widgets::MatrixHeatmap*>(view->plot());
      QVERIFY2(heatmap != nullptr, qPrintable(view->error()));
      QCOMPARE(heatmap->valueRange(), std::make_pair(-1.0, 1.0));
    }
  }

  // Compare heads: the button runs `compare --heads` on the first two runs off the GUI thread
  // (the window's shared controller), writes the CLI's report into the first run, and shows
  // the matching, whose cells are the report's JSD (read here by Qt); the CKA view follows.
  // Before it, the figure names the command that makes its input.
  void comparesTheHeadsOfTwoRuns() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndSelectBoth(window);
    tests::clickTab(window, "Compare");
    app::ComparePanel* compare = window.parts().views->comparePanel();
    QVERIFY(compare->showComparison("heads-matching"));
    QVERIFY2(compare->figureViews().front()->error().contains("--heads"),
             qPrintable(compare->figureViews().front()->error()));

    QSignalSpy finished(window.parts().analysis, &app::AnalysisController::finished);
    QPushButton* run = compare->compareHeadsBar()->runButton();
    QVERIFY(run->isEnabled());
    QTest::mouseClick(run, Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    const QString file = finished.first().at(3).toString();
    QVERIFY2(file.startsWith(m_plain + "/analysis/compare-step-8-vs-realformer-step-8/"),
             qPrintable(file));
    QTRY_VERIFY(compare->compareHeadsMessage()->text().contains(file));
    QCOMPARE(compare->currentComparison(), QString("heads-matching"));
    auto* map = qobject_cast<widgets::MatrixHeatmap*>(compare->figureViews().front()->plot());
    QVERIFY2(map != nullptr, qPrintable(compare->figureViews().front()->error()));
    const QJsonObject report = readJson(file);
    const QJsonArray jsd = report["heads"].toObject()["jsd"].toArray();
    for (int l = 0; l < jsd.size(); ++l)
      for (int a = 0; a < jsd[l].toArray().size(); ++a)
        for (int b = 0; b < jsd[l].toArray()[a].toArray().size(); ++b)
          QVERIFY(std::abs(map->drawnCell(l, a, b) - jsd[l][a][b].toDouble()) < 1e-6);

    QVERIFY(compare->showComparison("layer-cka"));
    map = qobject_cast<widgets::MatrixHeatmap*>(compare->figureViews().front()->plot());
    QVERIFY2(map != nullptr, qPrintable(compare->figureViews().front()->error()));
    const QJsonArray cka = report["cka"].toObject()["matrix"].toArray();
    QVERIFY(std::abs(map->drawnCell(0, 0, 0) - cka[0][0].toDouble()) < 1e-6);
  }

  // Not a check: with ATTNLAB_SHOT_RUNS="RUN_A;RUN_B" and ATTNLAB_SHOT_FILE set, the real
  // window on those two runs, Compare showing the rollout summary, saved as a PNG (how
  // docs/figures/app-compare-beyond.png is made).
  void screenshotOfTwoRuns() {
    const QStringList runs =
        qEnvironmentVariable("ATTNLAB_SHOT_RUNS").split(';', Qt::SkipEmptyParts);
    const QString file = qEnvironmentVariable("ATTNLAB_SHOT_FILE");
    if (runs.size() != 2 || file.isEmpty()) QSKIP("ATTNLAB_SHOT_RUNS / ATTNLAB_SHOT_FILE not set");
    app::MainWindow window;
    window.resize(1500, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (const QString& run : runs) QVERIFY(window.openRun(run) != nullptr);
    QListWidget* list = window.parts().runsPanel->list();
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(0)).center());
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::ControlModifier,
                      list->visualItemRect(list->item(1)).center());
    tests::clickTab(window, "Compare");
    app::ComparePanel* compare = window.parts().views->comparePanel();
    QVERIFY(compare->showComparison("rollout-spread"));
    QTRY_VERIFY(compare->figureViews().size() == 1 && compare->figureViews().front()->plot());
    QTRY_VERIFY(!compare->summaries().empty());
    compare->figureViews().front()->plot()->replotNow();
    QVERIFY(window.grab().save(file));
  }

  void figuresMenuOpensAnExportableView() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    openAndSelectBoth(window);
    auto* action = window.findChild<QAction*>("figure:realformer-fig6");
    QVERIFY(action != nullptr);
    QVERIFY(action->text().contains("RealFormer"));
    const int tabs = window.parts().views->count();
    action->trigger();
    QCOMPARE(window.parts().views->count(), tabs + 1);
    auto* view = qobject_cast<app::FigureView*>(window.parts().views->currentWidget());
    QVERIFY(view != nullptr);
    QVERIFY2(view->error().isEmpty(), qPrintable(view->error()));
    QVERIFY(view->provenanceText().contains("plain"));
    QVERIFY(view->provenanceText().contains("realformer"));

    // File > Export figure at a chosen size and DPI: PNG of w*dpi/96 pixels.
    window.findChild<QAction*>("exportFigureAction")->trigger();
    app::ExportFigureDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<app::ExportFigureDialog*>()) != nullptr);
    fillExportDialog(dialog, path("fig6.png"), 640, 480, 192);
    QTRY_VERIFY(QFile::exists(path("fig6.png")));
    const QImage image(path("fig6.png"));
    QCOMPARE(image.size(), QSize(1280, 960));
    // SVG: the title and axis label are text.
    QCOMPARE(window.parts().views->exportCurrentView(path("fig6.svg")), QString());
    const QString svg = svgTexts(path("fig6.svg")).join(' ');
    QVERIFY2(svg.contains("Adjacent-layer Jensen-Shannon"), qPrintable(svg.left(300)));
    QVERIFY2(svg.contains("bits") && svg.contains("head (ordered by median"),
             qPrintable(svg.left(300)));
    // An unwritable place: the error names it, the window goes on.
    const QString bad = window.parts().views->exportCurrentView("/proc/attnlab-no/fig.png");
    QVERIFY2(bad.contains("/proc/attnlab-no"), qPrintable(bad));

    // A figure whose input is missing says which command makes it.
    window.parts().runsPanel->selectOnly(window.parts().runs->find(m_plain));
    window.findChild<QAction*>("figure:asa-fig5")->trigger();
    auto* missing = qobject_cast<app::FigureView*>(window.parts().views->currentWidget());
    QVERIFY(missing != nullptr && missing->plot() == nullptr);
    QVERIFY2(missing->error().contains("asa"), qPrintable(missing->error()));
    // Figure tabs close; the fixed views do not.
    const int index = window.parts().views->currentIndex();
    emit window.parts().views->tabCloseRequested(index);
    QCOMPARE(window.parts().views->count(), tabs + 1);
    emit window.parts().views->tabCloseRequested(0);
    QCOMPARE(window.parts().views->count(), tabs + 1);
    closeMessageBoxes(window);
  }

  void everyPlotHasAnExportContextMenu() {
    app::MainWindow window;
    window.resize(1280, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(m_plain) != nullptr);
    tests::clickTab(window, "Curves");
    widgets::CurvePlot* plot = nullptr;
    QTRY_VERIFY((plot = window.parts().views->curvesPanel()->plotFor("train/loss")) != nullptr);
    QTRY_VERIFY(plot->isVisible());
    // A right click on the plot, as the window system delivers it.
    QWidget* canvas = plot->customPlot();
    const QPoint at = canvas->rect().center();
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &event);
    QMenu* menu = window.parts().plotMenu->menu();
    QVERIFY(menu != nullptr);
    QTRY_VERIFY(menu->isVisible());
    QAction* exportAction = nullptr;
    for (QAction* a : menu->actions())
      if (a->text().startsWith("Export figure")) exportAction = a;
    QVERIFY(exportAction != nullptr);
    exportAction->trigger();
    QTRY_VERIFY(window.parts().plotMenu->dialog() != nullptr);
    fillExportDialog(window.parts().plotMenu->dialog(), path("loss.pdf"), 500, 300, 150);
    QTRY_VERIFY(QFile::exists(path("loss.pdf")));
    // The PDF renders: pdftoppm makes an image of it.
    const auto r = tests::runProcess(
        "pdftoppm", {"-png", "-r", "72", "-singlefile", path("loss.pdf"), path("loss-pdf")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QImage(path("loss-pdf.png")).isNull());
  }

  void runsTheAnalysisWithTheChosenOptions() {
    // A copy, so the other cases keep the default report.
    const QString run = path("options-run");
    QVERIFY(QDir().mkpath(run));
    for (const QString& f : filesUnder(m_plain)) {
      if (f.startsWith("analysis/")) continue;
      QVERIFY(QDir().mkpath(QFileInfo(run + "/" + f).path()));
      QVERIFY(QFile::copy(m_plain + "/" + f, run + "/" + f));
    }
    const QString text = path("eval.txt");
    QVERIFY(tests::writeBytes(text,
                              "the cat sat on the mat .\na dog ran home .\n"
                              "birds sing at dawn .\nit rained all day .\n"));
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(run) != nullptr);
    tests::clickTab(window, "Analysis");
    app::AnalysisRunOptionsButton* options =
        window.parts().views->analysisPanel()->runOptionsButton();
    QTest::mouseClick(options->textChoice(), Qt::LeftButton);
    options->textFileField()->setText(text);
    options->pairwiseField()->setValue(2);
    QSignalSpy finished(window.parts().analysis, &app::AnalysisController::finished);
    QPushButton* runButton =
        window.parts().views->analysisPanel()->findChild<app::JobBar*>()->runButton();
    QVERIFY(runButton->isEnabled());
    QTest::mouseClick(runButton, Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.last().at(0).toBool(), qPrintable(finished.last().at(2).toString()));
    const QJsonObject report = readJson(finished.last().at(3).toString());
    // The text file's four lines, and the pairwise matrix over two of them.
    QCOMPARE(report["evaluation"].toObject()["sequences"].toInt(), 4);
    QCOMPARE(report["evaluation"].toObject()["kind"].toString(), QStringLiteral("text"));
  }

  void refusesACheckpointOfAnotherModel() {
    // The RealFormer run's checkpoint copied into a copy of the plain run: the parameters have
    // the same shapes, only the attention differs, so nothing but the configs can tell.
    const QString run = path("mixed-run");
    for (const QString& f : filesUnder(m_plain)) {
      if (f.startsWith("analysis/")) continue;
      QVERIFY(QDir().mkpath(QFileInfo(run + "/" + f).path()));
      QVERIFY(QFile::copy(m_plain + "/" + f, run + "/" + f));
    }
    const QString foreign = run + "/checkpoints/step-0000008.h5";
    QVERIFY(QFile::remove(foreign));
    QVERIFY(QFile::copy(m_variant + "/checkpoints/step-0000008.h5", foreign));
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(run) != nullptr);
    tests::clickTab(window, "Analysis");
    QSignalSpy finished(window.parts().analysis, &app::AnalysisController::finished);
    QTest::mouseClick(window.parts().views->analysisPanel()->findChild<app::JobBar*>()->runButton(),
                      Qt::LeftButton);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    const QString message = finished.last().at(2).toString();
    QVERIFY2(message.contains(foreign) && message.contains("attention.residual") &&
                 message.contains("config.toml"),
             qPrintable(message));
    QVERIFY(!QFile::exists(run + "/analysis/step-8/analysis.json"));
    // The command line says the same.
    const auto r = tests::runCli({"analyze", run});
    QVERIFY2(r.exitCode != 0, qPrintable(r.err + r.out));
    QVERIFY2((r.err + r.out).contains("attention.residual"), qPrintable(r.err + r.out));
    closeMessageBoxes(window);
  }

  void exportsTheReportAsTheCliDoes() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openRun(m_variant) != nullptr);
    QSignalSpy finished(window.parts().exports->reportExport(),
                        &app::ReportExportController::finished);

    // Cancelled at once: nothing under the chosen name, no partial folder.
    const QString cancelled = path("report-cancelled");
    QCOMPARE(window.parts().exports->exportReport(cancelled), QString());
    window.findChild<QAction*>("cancelReportAction")->trigger();
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    QVERIFY(!QDir(cancelled).exists());
    QVERIFY(!QDir(cancelled + ".part").exists());

    const QString out = path("report-app");
    QCOMPARE(window.parts().exports->exportReport(out), QString());
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.last().at(0).toBool(), qPrintable(finished.last().at(2).toString()));
    QVERIFY(!QDir(out + ".part").exists());
    const QStringList files = filesUnder(out);
    for (const char* expected :
         {"index.md", "config.toml", "summary.md", "summary.csv", "analysis/analysis.json",
          "coref/coref.json", "realformer-fig4.svg", "entropy-violins.png", "asa-fig5.pdf"})
      QVERIFY2(files.contains(expected),
               qPrintable(expected + QString(" not in ") + files.join(',')));
    QFile index(out + "/index.md");
    QVERIFY(index.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(index.readAll());
    QVERIFY(text.contains("analysis/analysis.json"));
    QVERIFY(text.contains("checkpoint step 8"));
    QVERIFY(text.contains("config.toml"));
    // The CLI's bundle has the same files.
    const auto r = tests::runCli({"export", m_variant, "--report", path("report-cli")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QCOMPARE(filesUnder(path("report-cli")), files);

    // A folder that is not empty is refused with its name; nothing is written.
    const QString refused = window.parts().exports->exportReport(out);
    QVERIFY2(refused.contains(out) && refused.contains("not empty"), qPrintable(refused));
  }
};

QTEST_MAIN(TestCompareAndExport)
#include "test_compare_and_export.moc"
