// File > New run: presets, the form's verdict on Start, Load… and Save as TOML…, the run
// folder following run.name, Resume for a folder that holds a run, and what is remembered.
// Screenshots of the dialog go to <temp>/new_run_dialog*.png for a person to look at.

#include "app/gui/new_run/config_form.h"
#include "app/gui/new_run/config_presets.h"
#include "app/gui/new_run/new_run_dialog.h"
#include "core/config/config_loader.h"
#include "core/config/config_schema.h"
#include "core/errors/error.h"
#include "core/runtime/gpu_info.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using attnlab::app::ConfigForm;
using attnlab::app::NewRunDialog;
namespace core = attnlab::core;

namespace {

const QString kConfigs = QStringLiteral(ATTNLAB_SOURCE_DIR "/resources/configs");

core::RunConfig preset(const QString& name) {
  return core::loadRunConfig((kConfigs + '/' + name + QStringLiteral(".toml")).toStdString());
}

QString cliError(const std::function<void()>& action) {
  try {
    action();
  } catch (const attnlab::ConfigError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

void typeInto(QLineEdit* edit, const QString& text) {
  QVERIFY(edit);
  edit->setFocus();
  edit->selectAll();
  if (text.isEmpty()) {
    QTest::keyClick(edit, Qt::Key_Delete);
  } else {
    QTest::keyClicks(edit, text);
  }
}

QLineEdit* field(NewRunDialog& dialog, const QString& path) {
  return dialog.form()->findChild<QLineEdit*>(path);
}

void writeFile(const QString& path, const QByteArray& text) {
  QFile file(path);
  QVERIFY(file.open(QIODevice::WriteOnly));
  file.write(text);
}

}  // namespace

class TestNewRunDialog : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void init();
  void presetsAreFound();
  void choosingTinyLoadsIt();
  void wrongValueDisablesStartUntilFixed();
  void saveThenLoadReproducesTheConfig();
  void fileWithAnUnknownKeyIsShownNotDropped();
  void badTomlIsShownWithItsLine();
  void runFolderFollowsRunNameUntilEdited();
  void folderHoldingARunTurnsStartIntoResume();
  void choicesAreRemembered();
  void devicesAreListedWithLinksToTheirKeys();
  void screenshots();

 private:
  QTemporaryDir m_settingsDir;
  QTemporaryDir m_work;
};

void TestNewRunDialog::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QVERIFY(m_settingsDir.isValid());
  QVERIFY(m_work.isValid());
  QCoreApplication::setOrganizationName(QStringLiteral("AttnLabTest"));
  QCoreApplication::setApplicationName(QStringLiteral("test_new_run_dialog"));
  QSettings::setDefaultFormat(QSettings::IniFormat);
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
  // The presets come from the source tree, whatever the environment says.
  qunsetenv("ATTNLAB_CONFIG_DIR");
}

void TestNewRunDialog::init() {
  QSettings().clear();
}

void TestNewRunDialog::presetsAreFound() {
  const auto presets = attnlab::app::configPresets();
  QVERIFY(presets.size() >= 2);
  const auto tiny = attnlab::app::findConfigPreset(QStringLiteral("tiny"));
  QVERIFY(tiny.has_value());
  QVERIFY(tiny->description.startsWith(QStringLiteral("The demo:")));

  // $ATTNLAB_CONFIG_DIR comes first and may replace a shipped preset.
  QTemporaryDir own;
  writeFile(own.filePath(QStringLiteral("tiny.toml")), "# Mine.\n[model]\nlayers = 1\n");
  qputenv("ATTNLAB_CONFIG_DIR", own.path().toUtf8());
  const auto replaced = attnlab::app::findConfigPreset(QStringLiteral("tiny"));
  qunsetenv("ATTNLAB_CONFIG_DIR");
  QVERIFY(replaced.has_value());
  QCOMPARE(replaced->description, QStringLiteral("Mine."));
  QCOMPARE(replaced->path, QDir(own.path()).filePath(QStringLiteral("tiny.toml")));
}

void TestNewRunDialog::choosingTinyLoadsIt() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("bert-small"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  QCOMPARE(dialog.currentPreset(), QStringLiteral("bert-small"));
  QCOMPARE(field(dialog, QStringLiteral("model.layers"))->text(), QStringLiteral("4"));

  // Typing in the preset combo picks the preset and loads it.
  auto* combo = dialog.findChild<QComboBox*>(QStringLiteral("presetCombo"));
  combo->setFocus();
  QTest::keyClicks(combo, QStringLiteral("tiny"));
  QTRY_COMPARE(dialog.currentPreset(), QStringLiteral("tiny"));
  QCOMPARE(combo->currentText(), QStringLiteral("tiny"));
  QCOMPARE(field(dialog, QStringLiteral("model.layers"))->text(), QStringLiteral("2"));
  QCOMPARE(field(dialog, QStringLiteral("model.hidden_size"))->text(), QStringLiteral("128"));
  QVERIFY(core::differingKeys(dialog.config(), preset(QStringLiteral("tiny"))).empty());
  QCOMPARE(dialog.runDirectory(), QDir(m_work.path()).filePath(QStringLiteral("tiny")));
  QVERIFY(dialog.startButton()->isEnabled());
  QCOMPARE(dialog.startButton()->text(), QStringLiteral("Start"));
  QVERIFY(!dialog.resumesExistingRun());
}

void TestNewRunDialog::wrongValueDisablesStartUntilFixed() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  dialog.form()->showSection(QStringLiteral("model"));
  QVERIFY(dialog.startButton()->isEnabled());

  core::RunConfig zero = preset(QStringLiteral("tiny"));
  zero.model.layers = 0;
  const QString expected = cliError([&] { core::validateRunConfig(zero); });
  typeInto(field(dialog, QStringLiteral("model.layers")), QStringLiteral("0"));
  QTRY_VERIFY(!dialog.startButton()->isEnabled());
  QCOMPARE(dialog.form()->errorFor(QStringLiteral("model.layers")), expected);
  QVERIFY(dialog.summaryText().contains(expected));
  auto* summary = dialog.findChild<QLabel*>(QStringLiteral("summary"));
  QVERIFY(summary->isVisible());
  QVERIFY(summary->text().contains(expected.toHtmlEscaped()));
  QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("saveButton"))->isEnabled());

  typeInto(field(dialog, QStringLiteral("model.layers")), QStringLiteral("3"));
  QTRY_VERIFY(dialog.startButton()->isEnabled());
  QVERIFY(dialog.summaryText().isEmpty());

  // The rule across keys, at model.heads, with the command line's text.
  const QString heads = cliError([] {
    core::parseRunConfig(core::toToml(preset(QStringLiteral("tiny"))), "tiny", {"model.heads=3"});
  });
  typeInto(field(dialog, QStringLiteral("model.heads")), QStringLiteral("3"));
  QTRY_VERIFY(!dialog.startButton()->isEnabled());
  QCOMPARE(dialog.form()->errorFor(QStringLiteral("model.heads")), heads);
  typeInto(field(dialog, QStringLiteral("model.heads")), QStringLiteral("4"));
  QTRY_VERIFY(dialog.startButton()->isEnabled());

  // An empty run folder disables Start too.
  typeInto(dialog.findChild<QLineEdit*>(QStringLiteral("runDirectory")), QString());
  QVERIFY(!dialog.startButton()->isEnabled());
  QCOMPARE(dialog.summaryText(), QStringLiteral("Choose a run folder."));
}

void TestNewRunDialog::saveThenLoadReproducesTheConfig() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  // Some edits, a variant among them, so the file is not just the preset.
  dialog.form()->showSection(QStringLiteral("optimizer"));
  typeInto(field(dialog, QStringLiteral("optimizer.learning_rate")), QStringLiteral("1e-4"));
  dialog.form()->showSection(QStringLiteral("attention"));
  QCheckBox* guidance = dialog.form()->variantSwitch(QStringLiteral("attention.guidance"));
  QTest::mouseClick(guidance, Qt::LeftButton, {}, QPoint(8, guidance->height() / 2));
  QVERIFY(dialog.config().attention.guidance.enabled);
  QVERIFY(dialog.form()->isValid());
  const core::RunConfig saved = dialog.config();

  const QString path = m_work.filePath(QStringLiteral("saved.toml"));
  QVERIFY(dialog.saveToml(path));
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  QCOMPARE(file.readAll().toStdString(), core::toToml(saved));

  NewRunDialog other(m_work.path(), QStringLiteral("bert-small"));
  QVERIFY(other.loadFile(path));
  QVERIFY(other.loadError().isEmpty());
  const auto differing = core::differingKeys(other.config(), saved);
  QVERIFY2(differing.empty(), differing.empty() ? "" : differing.front().c_str());
  QVERIFY(other.currentPreset().isEmpty());
  QVERIFY(other.startButton()->isEnabled());

  // JSON, the other format the command line reads, loads the same way.
  const QString json = m_work.filePath(QStringLiteral("saved.json"));
  writeFile(json, QByteArray::fromStdString(core::toJson(saved)));
  NewRunDialog third(m_work.path(), QStringLiteral("bert-small"));
  QVERIFY(third.loadFile(json));
  QVERIFY(core::differingKeys(third.config(), saved).empty());
}

void TestNewRunDialog::fileWithAnUnknownKeyIsShownNotDropped() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  const core::RunConfig before = dialog.config();

  const QString path = m_work.filePath(QStringLiteral("unknown.toml"));
  writeFile(path, "[model]\nlayers = 3\nhidden_szie = 64\n");
  const QString expected =
      cliError([&] { core::loadRunConfig(QFile::encodeName(path).toStdString()); });
  QVERIFY(expected.startsWith(QStringLiteral("model.hidden_szie: unknown key")));

  QVERIFY(!dialog.loadFile(path));
  auto* area = dialog.findChild<QLabel*>(QStringLiteral("loadError"));
  QVERIFY(area->isVisible());
  QVERIFY(area->text().contains(path));
  QVERIFY(area->text().contains(expected));
  QCOMPARE(dialog.loadError(), area->text());
  // The form keeps what it had; Start waits for a valid choice.
  QVERIFY(core::differingKeys(dialog.config(), before).empty());
  QVERIFY(dialog.form()->isValid());
  QVERIFY(!dialog.startButton()->isEnabled());

  // Picking a preset is such a choice, the one already shown included.
  auto* combo = dialog.findChild<QComboBox*>(QStringLiteral("presetCombo"));
  QCOMPARE(combo->currentText(), QStringLiteral("tiny"));
  combo->showPopup();
  QAbstractItemView* list = combo->view();
  QTRY_VERIFY(list->isVisible());
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                    list->visualRect(list->model()->index(combo->currentIndex(), 0)).center());
  QTRY_VERIFY(!area->isVisible());
  QVERIFY(dialog.startButton()->isEnabled());

  // So is editing a field after a failed load.
  QVERIFY(!dialog.loadFile(path));
  QVERIFY(!dialog.startButton()->isEnabled());
  dialog.form()->showSection(QStringLiteral("model"));
  typeInto(field(dialog, QStringLiteral("model.layers")), QStringLiteral("3"));
  QTRY_VERIFY(dialog.startButton()->isEnabled());
}

void TestNewRunDialog::badTomlIsShownWithItsLine() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  const QString path = m_work.filePath(QStringLiteral("broken.toml"));
  writeFile(path, "[model\nlayers = 3\n");
  const QString expected =
      cliError([&] { core::loadRunConfig(QFile::encodeName(path).toStdString()); });
  QVERIFY(expected.startsWith(path + QStringLiteral(":1:")));
  QVERIFY(!dialog.loadFile(path));
  QVERIFY(dialog.loadError().contains(expected));
  QVERIFY(!dialog.startButton()->isEnabled());

  // A file that is not there is named too.
  const QString missing = m_work.filePath(QStringLiteral("missing.json"));
  QVERIFY(!dialog.loadFile(missing));
  QVERIFY(dialog.loadError().contains(missing + QStringLiteral(": no such file")));
}

void TestNewRunDialog::runFolderFollowsRunNameUntilEdited() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  dialog.form()->showSection(QStringLiteral("run"));
  typeInto(field(dialog, QStringLiteral("run.name")), QStringLiteral("second"));
  QCOMPARE(dialog.runDirectory(), QDir(m_work.path()).filePath(QStringLiteral("second")));

  auto* directory = dialog.findChild<QLineEdit*>(QStringLiteral("runDirectory"));
  const QString mine = m_work.filePath(QStringLiteral("elsewhere/mine"));
  typeInto(directory, mine);
  QCOMPARE(dialog.runDirectory(), mine);
  typeInto(field(dialog, QStringLiteral("run.name")), QStringLiteral("third"));
  QCOMPARE(dialog.runDirectory(), mine);

  // A runs folder given later moves a proposed folder, not a chosen one.
  NewRunDialog fresh(m_work.path(), QStringLiteral("tiny"));
  fresh.setRunsFolder(m_work.filePath(QStringLiteral("runs")));
  QCOMPARE(fresh.runDirectory(), m_work.filePath(QStringLiteral("runs/tiny")));
}

void TestNewRunDialog::folderHoldingARunTurnsStartIntoResume() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  auto* directory = dialog.findChild<QLineEdit*>(QStringLiteral("runDirectory"));
  auto* note = dialog.findChild<QLabel*>(QStringLiteral("directoryNote"));

  QTemporaryDir run;
  typeInto(directory, run.path());
  QCOMPARE(dialog.startButton()->text(), QStringLiteral("Start"));
  QVERIFY(!dialog.resumesExistingRun());

  writeFile(QDir(run.path()).filePath(QStringLiteral("run.h5")), "not really HDF5");
  typeInto(directory, run.path() + QStringLiteral("/"));  // any edit re-reads the folder
  QTRY_COMPARE(dialog.startButton()->text(), QStringLiteral("Resume"));
  QVERIFY(dialog.resumesExistingRun());
  QVERIFY(dialog.startButton()->isEnabled());
  QVERIFY(note->text().contains(QStringLiteral("resume from its latest checkpoint")));
  QCOMPARE(dialog.runDirectory(), QDir::cleanPath(run.path()));

  // A checkpoints/ folder is a run as well.
  QTemporaryDir other;
  QVERIFY(QDir(other.path()).mkdir(QStringLiteral("checkpoints")));
  typeInto(directory, other.path());
  QTRY_COMPARE(dialog.startButton()->text(), QStringLiteral("Resume"));

  typeInto(directory, m_work.filePath(QStringLiteral("brand-new")));
  QTRY_COMPARE(dialog.startButton()->text(), QStringLiteral("Start"));
  QVERIFY(!note->text().contains(QStringLiteral("resume")));
}

void TestNewRunDialog::choicesAreRemembered() {
  QSettings().setValue(QStringLiteral("paths/runsFolder"), m_work.filePath(QStringLiteral("r")));
  {
    NewRunDialog dialog;  // runs folder from the settings, default preset tiny
    QCOMPARE(dialog.runsFolder(), m_work.filePath(QStringLiteral("r")));
    QCOMPARE(dialog.currentPreset(), QStringLiteral("tiny"));
    QVERIFY(dialog.selectPreset(QStringLiteral("variant-realformer")));
    auto* policy = dialog.findChild<QComboBox*>(QStringLiteral("ompWaitPolicy"));
    QCOMPARE(policy->currentData().toString(), QStringLiteral("passive"));
    policy->setCurrentIndex(policy->findData(QStringLiteral("active")));
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTest::mouseClick(dialog.startButton(), Qt::LeftButton);
    QCOMPARE(accepted.size(), 1);
  }
  const QSettings settings;
  QCOMPARE(settings.value(QStringLiteral("newRun/lastPreset")).toString(),
           QStringLiteral("variant-realformer"));
  QCOMPARE(settings.value(QStringLiteral("engine/ompWaitPolicy")).toString(),
           QStringLiteral("active"));
  QCOMPARE(settings.value(QStringLiteral("paths/runsFolder")).toString(),
           m_work.filePath(QStringLiteral("r")));
  NewRunDialog again;
  QCOMPARE(again.currentPreset(), QStringLiteral("variant-realformer"));
  QCOMPARE(again.findChild<QComboBox*>(QStringLiteral("ompWaitPolicy"))->currentData().toString(),
           QStringLiteral("active"));
}

void TestNewRunDialog::devicesAreListedWithLinksToTheirKeys() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  auto* devices = dialog.findChild<QLabel*>(QStringLiteral("devicesLabel"));
  QVERIFY(devices != nullptr);
  QVERIFY(devices->isVisible());
  // This machine's truth, from the engine's own listing: the GPUs, or "CPU only".
  const auto gpus = core::listGpus();
  if (gpus.empty())
    QVERIFY2(devices->text().contains(QStringLiteral("CPU only (LibTorch ")),
             qPrintable(devices->text()));
  else
    QVERIFY(devices->text().contains(QString::fromStdString(gpus.front().name)));
  // The links take the person to the device and precision keys of the form.
  emit devices->linkActivated(QStringLiteral("train.precision"));
  QWidget* precision = dialog.form()->findChild<QWidget*>(QStringLiteral("train.precision"));
  QVERIFY(precision != nullptr);
  QTRY_VERIFY(precision->hasFocus());
  QVERIFY(devices->text().contains(QStringLiteral("href=\"train.device\"")));
}

void TestNewRunDialog::screenshots() {
  NewRunDialog dialog(m_work.path(), QStringLiteral("tiny"));
  dialog.show();
  QVERIFY(QTest::qWaitForWindowExposed(&dialog));
  dialog.form()->showSection(QStringLiteral("model"));
  const QString dir = QDir::tempPath();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog.png")));

  dialog.form()->showSection(QStringLiteral("attention"));
  for (const QString& id :
       {QStringLiteral("attention.guidance"), QStringLiteral("attention.asa")}) {
    QCheckBox* toggle = dialog.form()->variantSwitch(id);
    QTest::mouseClick(toggle, Qt::LeftButton, {}, QPoint(8, toggle->height() / 2));
  }
  // The options just shown are laid out by posted layout requests; let them run first.
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog_variants.png")));

  // Today's mechanisms: the normalizer's switch reveals its choice, the sink logit and
  // clipped softmax's zeta and gamma in the same box.
  QCheckBox* normalizer = dialog.form()->variantSwitch(QStringLiteral("attention.normalizer"));
  QVERIFY(normalizer != nullptr);
  QTest::mouseClick(normalizer, Qt::LeftButton, {}, QPoint(8, normalizer->height() / 2));
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.form()->config().attention.normalizer != core::Normalizer::Softmax);
  auto* box = dialog.form()->findChild<QWidget*>(QStringLiteral("variantBox:attention.normalizer"));
  QVERIFY(box != nullptr);
  for (const char* key : {"attention.sink_logit", "attention.clipped.zeta"})
    QVERIFY2(box->isAncestorOf(dialog.form()->editorFor(QString::fromLatin1(key))), key);
  for (QWidget* w = box->parentWidget(); w; w = w->parentWidget())
    if (auto* scroll = qobject_cast<QScrollArea*>(w)) scroll->ensureWidgetVisible(box, 0, 0);
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog_today.png")));

  dialog.form()->showSection(QStringLiteral("model"));
  typeInto(field(dialog, QStringLiteral("model.heads")), QStringLiteral("3"));
  typeInto(field(dialog, QStringLiteral("model.dropout")), QStringLiteral("1.5"));
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog_errors.png")));

  // train.device takes cuda:N as text; a value that is none of the forms says so in place.
  dialog.form()->showSection(QStringLiteral("train"));
  typeInto(field(dialog, QStringLiteral("train.device")), QStringLiteral("gpu1"));
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog_device.png")));
  const QString deviceError = dialog.form()->errorFor(QStringLiteral("train.device"));
  QVERIFY2(deviceError.contains(QStringLiteral("cuda:N")), qPrintable(deviceError));
  typeInto(field(dialog, QStringLiteral("train.device")), QStringLiteral("cuda:1"));
  QVERIFY(dialog.form()->errorFor(QStringLiteral("train.device")).isEmpty());

  const QString path = m_work.filePath(QStringLiteral("typo.toml"));
  writeFile(path, "[model]\nlayrs = 3\n");
  QVERIFY(!dialog.loadFile(path));
  QCoreApplication::sendPostedEvents();
  QVERIFY(dialog.grab().save(dir + QStringLiteral("/new_run_dialog_load_error.png")));
}

QTEST_MAIN(TestNewRunDialog)
#include "test_new_run_dialog.moc"
