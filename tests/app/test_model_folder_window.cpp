// A pretrained model in the real main window (issue 29), as a person uses it: a small BERT
// that transformers pretrained on WordNet (tests/fixtures/hf-bert-wordnet) opened beside a run
// trained here. It is listed as a "pretrained model" without training history, the console
// says what it is, and the Inspect tab shows its attention: the pieces are its WordPiece
// tokenizer's ([CLS] ... [SEP]) and the weights are what the engine computes for the folder.
// File > Export model writes the trained run as a Hugging Face folder (attnlab-cli
// export-model in a child process), which the window then opens as a model whose attention
// equals the run's checkpoint's. Screenshots with ATTNLAB_MODEL_SHOT_DIR=<dir>.
// LibTorch (engine_random.h) before Qt: Qt's `slots` macro breaks its headers.
#include "core/runtime/engine_random.h"

#include "app/gui/inspection_controller.h"
#include "app/gui/main_window.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/inspector_panel.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/report_export_controller.h"
#include "app/gui/run_session.h"
#include "app/gui/view_tabs.h"
#include "app/gui/window_exports.h"
#include "core/config/config_loader.h"
#include "core/inspect/attention_inspector.h"
#include "tests/support/cli_process.h"
#include "tests/support/heatmap_hover.h"
#include "tests/support/model_folder_runs.h"
#include "tests/support/tiny_run_setup.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace attnlab;

namespace {

const QString kFixture = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-bert-wordnet");
const QString kModernBert = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-modernbert");

/// The largest difference between the frame's weights and the engine's for the same text.
double largestDifference(const app::InspectionFrame& frame, const std::string& source) {
  core::AttentionInspector inspector(source);
  const auto expected = inspector.inspect(frame.text.toStdString()).probabilities.contiguous();
  if (expected.size(0) != frame.layers || expected.size(3) != frame.length) return INFINITY;
  const std::int64_t perLayer = frame.heads * frame.length * frame.length;
  double worst = 0;
  for (int l = 0; l < frame.layers; ++l)
    for (std::int64_t i = 0; i < perLayer; ++i)
      worst = std::max(worst, std::abs(static_cast<double>(frame.probabilities[l].get()[i]) -
                                       expected.data_ptr<float>()[l * perLayer + i]));
  return worst;
}

}  // namespace

class TestModelFolderWindow : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_model, m_run;

  /// The Inspect tab of `source` (opened already) showing `text`.
  const app::InspectionFrame* inspect(app::MainWindow& window, const QString& source,
                                      const QString& text) {
    window.parts().runsPanel->selectOnly(window.parts().runs->find(source));
    if (!window.showView(QStringLiteral("Inspect"))) return nullptr;
    app::InspectorPanel* panel = window.parts().views->inspectorPanel();
    auto* edit = panel->findChild<QLineEdit*>("inspectText");
    edit->setFocus();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    QTest::keyClick(edit, Qt::Key_Return);
    const bool shown = QTest::qWaitFor(
        [&] {
          const auto& f = panel->frame();
          // A model's "checkpoint" is its folder; a run's, a file in <run>/checkpoints/.
          return f && f->text == text && !f->extrasPending &&
                 QFileInfo(f->checkpoint)
                     .canonicalFilePath()
                     .startsWith(QDir(source).canonicalPath());
        },
        60000);
    if (!shown && panel->frame())
      qWarning() << "shown:" << panel->frame()->checkpoint << panel->frame()->text;
    return shown ? &*panel->frame() : nullptr;
  }

  void screenshot(app::MainWindow& window, const QString& name) {
    const QString dir = qEnvironmentVariable("ATTNLAB_MODEL_SHOT_DIR");
    if (!dir.isEmpty()) QVERIFY(window.grab().save(dir + "/" + name));
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);  // File > Open model's folder is a setting
    QCoreApplication::setOrganizationName(QStringLiteral("AttnLabTest"));
    QSettings().remove(QStringLiteral("paths/lastModelParent"));
    qputenv("XDG_DATA_HOME", m_dir.filePath("data-home").toUtf8());
    const QString shotModel = qEnvironmentVariable("ATTNLAB_MODEL_SHOT_MODEL");
    m_model = shotModel.isEmpty() ? m_dir.filePath("bert-wordnet") : shotModel;
    if (shotModel.isEmpty()) {
      QDir().mkpath(m_model);
      for (const char* f : {"config.json", "model.safetensors", "tokenizer.json", "vocab.txt",
                            "tokenizer_config.json"})
        QVERIFY(QFile::copy(kFixture + "/" + f, m_model + "/" + f));
    }
    const QString shotRun = qEnvironmentVariable("ATTNLAB_MODEL_SHOT_RUN");
    m_run = shotRun.isEmpty() ? m_dir.filePath("run") : shotRun;
    if (!shotRun.isEmpty()) return;
    const core::RunConfig config = tests::prepareTinyRun(m_dir.path().toStdString());
    const QString toml = m_dir.filePath("tiny.toml");
    std::ofstream(toml.toStdString()) << core::toToml(config);
    const auto r = tests::runCli({"train", "--config", toml, "--run-dir", m_run, "--plain"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
  }

  // File > Open model as a person uses it: the folder dialog starts in the home folder the
  // first time, with no name typed in; picking the model folder opens it; the next time the
  // dialog starts in the folder that held it.
  void openModelStartsWhereTheLastModelWas() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* action = window.findChild<QAction*>("openModelAction");
    QVERIFY(action != nullptr);
    QString startedIn, typed;
    const auto answer = [&](const QString& choose) {
      // The dialog is modal: read and answer it from the event loop it runs.
      QTimer::singleShot(0, [&, choose] {
        QFileDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())));
        startedIn = dialog->directory().absolutePath();
        auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        typed = name ? name->text() : QStringLiteral("(no name field)");
        if (choose.isEmpty()) {
          dialog->reject();
        } else {
          dialog->selectFile(choose);
          QMetaObject::invokeMethod(dialog, "accept");  // the button's slot (protected)
        }
      });
      action->trigger();
    };
    answer(m_model);
    QCOMPARE(startedIn, QDir::homePath());
    QCOMPARE(typed, QString());
    QTRY_VERIFY(window.parts().runs->find(m_model) != nullptr);
    answer(QString());
    QCOMPARE(startedIn, QFileInfo(m_model).absolutePath());
    QCOMPARE(typed, QString());
  }

  void aModelOpensBesideARun() {
    app::MainWindow window;
    window.resize(1280, 820);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.findChild<QAction*>("openModelAction") != nullptr);
    app::RunSession* model = window.openRun(m_model);
    QVERIFY(model != nullptr);
    QVERIFY(window.openRun(m_run) != nullptr);
    QCOMPARE(model->status(), app::RunStatus::Pretrained);
    QCOMPARE(model->checkpoints().size(), std::size_t{1});
    const QString listed = window.parts().runsPanel->rowText(model);
    QVERIFY2(listed.contains("pretrained model"), qPrintable(listed));
    QVERIFY(!model->messages().empty());
    QVERIFY2(model->messages().front().text.contains("pretrained bert model"),
             qPrintable(model->messages().front().text));

    const QString text = QStringLiteral("the cat that the dog chased ran up the tree.");
    const app::InspectionFrame* frame = inspect(window, m_model, text);
    QVERIFY(frame != nullptr);
    QCOMPARE(frame->pieces.front(), QStringLiteral("[CLS]"));
    QCOMPARE(frame->pieces.back(), QStringLiteral("[SEP]"));
    QVERIFY(frame->pieces.contains(QStringLiteral("dog")));
    QCOMPARE(frame->layers, 2);
    QCOMPARE(frame->heads, 4);
    QVERIFY(largestDifference(*frame, m_model.toStdString()) < 1e-6);
    screenshot(window, "app-pretrained-model.png");
    // The run trained here, in the same window: its own SentencePiece pieces.
    const app::InspectionFrame* ours = inspect(window, m_run, text);
    QVERIFY(ours != nullptr);
    QCOMPARE(ours->pieces.front(), QStringLiteral("<s>"));
  }

  // A ModernBERT folder's windowed layers (1 and 2 of 4, window 8) in the Inspect tab: picking
  // a head of layer 1 in the grid frames the band of 4 keys either side on the heatmap, the
  // read-out says a cell beyond it is outside the window, and a global layer has no frame.
  void windowedLayersFrameTheirBand() {
    const QString model = tests::readOnlyCopy(kModernBert, m_dir.filePath("modernbert"));
    QVERIFY(!model.isEmpty());
    app::MainWindow window;
    window.resize(1280, 820);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    app::RunSession* session = window.openRun(model);
    QVERIFY(session != nullptr);
    QCOMPARE(session->bandHalfWidth(0), -1);  // the Attention tab's source of the band
    QCOMPARE(session->bandHalfWidth(1), 4);
    const QString text = QStringLiteral("the cat that the dog chased ran up the old oak tree.");
    const app::InspectionFrame* frame = inspect(window, model, text);
    QVERIFY(frame != nullptr);
    QVERIFY(frame->length > 12);
    app::InspectorPanel* panel = window.parts().views->inspectorPanel();
    widgets::AttentionHeatmap* map = panel->heatmap();
    QVERIFY(tests::clickHead(panel->headGrid(), 1, 0));
    QTRY_COMPARE(map->bandHalfWidth(), 4);
    const auto upper = map->bandEdge(true);
    QVERIFY(!upper.isEmpty());
    QCOMPARE(upper.front(), QPointF(4.5, -0.5));  // between keys 4 and 5 of query 0
    QVERIFY(tests::hoverCell(map, 0, 6));
    QVERIFY2(map->readout().contains("outside the window"), qPrintable(map->readout()));
    QCOMPARE(map->matrix().at(0, 6), 0.0f);  // and its weight is exactly 0
    QVERIFY(tests::hoverCell(map, 0, 3));
    QVERIFY(!map->readout().contains("outside the window"));
    screenshot(window, "modernbert-band.png");
    QVERIFY(tests::clickHead(panel->headGrid(), 0, 0));
    QTRY_COMPARE(map->bandHalfWidth(), -1);
    QVERIFY(map->bandEdge(true).isEmpty());
  }

  void exportsTheRunAndOpensTheExport() {
    app::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.findChild<QAction*>("exportModelAction") != nullptr);
    QVERIFY(window.openRun(m_run) != nullptr);
    QSignalSpy finished(window.parts().exports->modelExport(),
                        &app::ReportExportController::finished);
    const QString out = m_dir.filePath("exported");
    QCOMPARE(window.parts().exports->exportModel(out), QString());
    QVERIFY(finished.wait(120000));
    QVERIFY2(finished.last().at(0).toBool(), qPrintable(finished.last().at(2).toString()));
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
      QVERIFY2(QFile::exists(out + "/" + f), f);
    QVERIFY(!QDir(out + ".part").exists());

    app::RunSession* exported = window.openRun(out);
    QVERIFY(exported != nullptr);
    QCOMPARE(exported->status(), app::RunStatus::Pretrained);
    const app::InspectionFrame* frame = inspect(window, out, QStringLiteral("the cat sat"));
    QVERIFY(frame != nullptr);
    QCOMPARE(frame->pieces.front(), QStringLiteral("<s>"));
    // The export computes what the run's checkpoint computes.
    QVERIFY(largestDifference(*frame, tests::lastCheckpointOf(m_run).toStdString()) < 1e-6);

    const QString refused = window.parts().exports->exportModel(out);
    QVERIFY2(refused.contains(out) && refused.contains("not empty"), qPrintable(refused));
  }
};

QTEST_MAIN(TestModelFolderWindow)
#include "test_model_folder_window.moc"
