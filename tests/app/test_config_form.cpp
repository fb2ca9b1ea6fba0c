// The schema-generated config form: one editor per key, values shown and read back without
// loss, the command line's messages at the field as the person types, and the attention
// variants switched on by their checkboxes.

#include "app/gui/new_run/config_form.h"
#include "core/config/config_loader.h"
#include "core/config/config_schema.h"
#include "core/errors/error.h"
#include "core/mechanisms/mechanism_names.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <functional>

using attnlab::app::ConfigForm;
namespace core = attnlab::core;

namespace {

const QString kConfigs = QStringLiteral(ATTNLAB_SOURCE_DIR "/resources/configs");

core::RunConfig tiny() {
  return core::loadRunConfig((kConfigs + QStringLiteral("/tiny.toml")).toStdString());
}

/// What attnlab-cli prints for the failure `action` throws ("<where>: <reason>").
QString cliError(const std::function<void()>& action) {
  try {
    action();
  } catch (const attnlab::ConfigError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

/// The reason alone, for messages whose where() differs between the command line's ways
/// in (--set names "--set <key>", a file names the key and appends its line).
QString cliReason(const std::function<void()>& action) {
  try {
    action();
  } catch (const attnlab::ConfigError& e) {
    return QString::fromStdString(e.reason());
  }
  return {};
}

/// Answers the next modal QFileDialog as a person does: goes to the folder `typed` and clicks
/// the accepting button, or presses Escape when `typed` is empty. Polled every 10 ms (at most 5 s),
/// since the click that opens the dialog runs the dialog's own event loop.
void answerFileDialog(const QString& typed, int triesLeft = 500) {
  QTimer::singleShot(10, [typed, triesLeft] {
    auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
    if (dialog == nullptr) {
      if (triesLeft > 0) answerFileDialog(typed, triesLeft - 1);
      return;
    }
    if (typed.isEmpty()) {
      QTest::keyClick(dialog, Qt::Key_Escape);
      return;
    }
    dialog->setDirectory(typed);
    auto* buttons = dialog->findChild<QDialogButtonBox*>();
    QTest::mouseClick(buttons->button(QDialogButtonBox::Open), Qt::LeftButton);
  });
}

QLineEdit* lineEdit(ConfigForm& form, const QString& path) {
  return form.findChild<QLineEdit*>(path);
}

/// Replaces a line edit's text by typing, as a person would.
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

/// Clicks a checkbox on its indicator (its middle can be past the end of its text).
void clickCheckBox(QCheckBox* box) {
  QVERIFY(box);
  QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
}

}  // namespace

class TestConfigForm : public QObject {
  Q_OBJECT

 private slots:
  void everyKeyHasAnEditorNamedByItsPath();
  void everyPresetRoundTrips();
  void ownChecksShowTheCommandLineMessage();
  void integersAreInt64AndFloatsReadLikeToml();
  void crossKeyRuleShowsAtItsKey();
  void listsAreParsedAndChecked();
  void variantCheckboxRevealsItsOptions();
  void choiceVariantSwitchSetsItsChoice();
  void resetButtonRestoresTheDefault();
  void browseFillsAFolderKey();
  void editedOnlyForThePersonsChanges();
};

void TestConfigForm::everyKeyHasAnEditorNamedByItsPath() {
  ConfigForm form;
  for (const auto& key : core::configSchema()) {
    const QString path = QString::fromStdString(key.path);
    const auto editors = form.findChildren<QWidget*>(path);
    QVERIFY2(editors.size() == 1, qPrintable(path));
    QCOMPARE(form.editorFor(path), editors.front());
    // The tooltip states the meaning's start, the type and the default.
    const QString tip = editors.front()->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("Default: ") +
                          QString::fromStdString(core::toTomlLiteral(key.defaultValue))),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Type: ")), qPrintable(tip));
    // Every field has its error label, hidden while the value is fine.
    auto* error = form.findChild<QLabel*>(QStringLiteral("error:") + path);
    QVERIFY2(error, qPrintable(path));
    QVERIFY(error->text().isEmpty());
  }
  QVERIFY(form.isValid());
  QVERIFY(form.errors().isEmpty());
  QVERIFY(form.sections().contains(QStringLiteral("model")));
  QCOMPARE(form.sections().last(), QStringLiteral("attention"));
  QCOMPARE(form.sectionTitle(QStringLiteral("attention")), QStringLiteral("Attention variants"));
}

void TestConfigForm::everyPresetRoundTrips() {
  // Every value shown must read back to the same value, floats included.
  const QStringList presets = QDir(kConfigs).entryList({QStringLiteral("*.toml")}, QDir::Files);
  QVERIFY(presets.size() >= 2);
  ConfigForm form;
  for (const QString& name : presets) {
    const core::RunConfig config = core::loadRunConfig((kConfigs + '/' + name).toStdString());
    form.setConfig(config);
    QVERIFY2(form.isValid(), qPrintable(name + ": " + form.errors().join("; ")));
    const auto differing = core::differingKeys(form.config(), config);
    const QString first = differing.empty() ? QString() : QString::fromStdString(differing.front());
    QVERIFY2(differing.empty(), qPrintable(name + ": " + first));
  }
}

void TestConfigForm::ownChecksShowTheCommandLineMessage() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  form.showSection(QStringLiteral("model"));
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  QSignalSpy validity(&form, &ConfigForm::validityChanged);
  QLineEdit* layers = lineEdit(form, QStringLiteral("model.layers"));
  QCOMPARE(layers->text(), QStringLiteral("2"));

  // model.layers = 0: the message validateRunConfig() gives the command line.
  core::RunConfig zero = tiny();
  zero.model.layers = 0;
  const QString expected = cliError([&] { core::validateRunConfig(zero); });
  QCOMPARE(expected, QStringLiteral("model.layers: must be >= 1, got 0"));
  typeInto(layers, QStringLiteral("0"));
  QCOMPARE(form.errorFor(QStringLiteral("model.layers")), expected);
  auto* label = form.findChild<QLabel*>(QStringLiteral("error:model.layers"));
  QCOMPARE(label->text(), expected);
  QVERIFY(label->isVisible());
  QVERIFY(!layers->styleSheet().isEmpty());  // the editor's frame is marked
  QVERIFY(!form.isValid());
  QCOMPARE(form.errors(), QStringList{expected});
  QCOMPARE(validity.size(), 1);
  QCOMPARE(validity.takeFirst().at(0).toBool(), false);

  // A float in an integer field: the type check's text, as a file would get it.
  typeInto(layers, QStringLiteral("2.5"));
  const QString reason =
      cliReason([] { core::parseRunConfig("[model]\nlayers = 2.5\n", "typed.toml"); });
  QVERIFY2(reason.startsWith(QStringLiteral("expected an integer, got a float")),
           qPrintable(reason));
  const QString typeMessage = QStringLiteral("model.layers: ") + cliReason([] {
                                core::RunConfig c;
                                core::applyOverride(c, "model.layers=2.5");
                              });
  QCOMPARE(typeMessage, QStringLiteral("model.layers: expected an integer, got a float"));
  QVERIFY(reason.startsWith(typeMessage.mid(QStringLiteral("model.layers: ").size())));
  QCOMPARE(form.errorFor(QStringLiteral("model.layers")), typeMessage);
  QCOMPARE(label->text(), typeMessage);

  // Text that is no number at all.
  typeInto(layers, QStringLiteral("two"));
  QCOMPARE(form.errorFor(QStringLiteral("model.layers")),
           QStringLiteral("model.layers: ") + cliReason([] {
             core::RunConfig c;
             core::applyOverride(c, "model.layers=two");
           }));

  // Fixing it clears the message and the mark.
  validity.clear();
  typeInto(layers, QStringLiteral("3"));
  QVERIFY(form.errorFor(QStringLiteral("model.layers")).isEmpty());
  QTRY_VERIFY(!label->isVisible());
  QVERIFY(layers->styleSheet().isEmpty());
  QVERIFY(form.isValid());
  QCOMPARE(form.config().model.layers, 3);
  QCOMPARE(validity.size(), 1);
  QCOMPARE(validity.takeFirst().at(0).toBool(), true);

  // A string key's own check (run.name must not be empty).
  form.showSection(QStringLiteral("run"));
  QLineEdit* name = lineEdit(form, QStringLiteral("run.name"));
  typeInto(name, QString());
  core::RunConfig unnamed = tiny();
  unnamed.run.name.clear();
  QCOMPARE(form.errorFor(QStringLiteral("run.name")),
           cliError([&] { core::validateRunConfig(unnamed); }));
  typeInto(name, QStringLiteral("again"));
  QVERIFY(form.isValid());
  QCOMPARE(form.config().run.name, std::string("again"));
}

void TestConfigForm::integersAreInt64AndFloatsReadLikeToml() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  QVERIFY(QTest::qWaitForWindowExposed(&form));

  form.showSection(QStringLiteral("optimizer"));
  typeInto(lineEdit(form, QStringLiteral("optimizer.learning_rate")), QStringLiteral("1e-4"));
  QVERIFY2(form.isValid(), qPrintable(form.errors().join("; ")));
  QCOMPARE(form.config().optimizer.learningRate, 1e-4);
  typeInto(lineEdit(form, QStringLiteral("optimizer.learning_rate")), QStringLiteral("0"));
  QCOMPARE(form.errorFor(QStringLiteral("optimizer.learning_rate")),
           QStringLiteral("optimizer.learning_rate: must be > 0, got 0.0"));
  typeInto(lineEdit(form, QStringLiteral("optimizer.learning_rate")), QStringLiteral("3"));
  QCOMPARE(form.config().optimizer.learningRate, 3.0);  // an integer is a fine float

  // schedule.steps is int64: values past the int range are kept exactly.
  form.showSection(QStringLiteral("schedule"));
  typeInto(lineEdit(form, QStringLiteral("schedule.steps")), QStringLiteral("5000000000"));
  QVERIFY2(form.isValid(), qPrintable(form.errors().join("; ")));
  QCOMPARE(form.config().schedule.steps, std::int64_t{5000000000});

  // model.layers is an int: the same value is refused with the command line's reason.
  form.showSection(QStringLiteral("model"));
  typeInto(lineEdit(form, QStringLiteral("model.layers")), QStringLiteral("5000000000"));
  QCOMPARE(form.errorFor(QStringLiteral("model.layers")),
           QStringLiteral("model.layers: ") + cliReason([] {
             core::RunConfig c;
             core::applyOverride(c, "model.layers=5000000000");
           }));
  QVERIFY(!form.isValid());
}

void TestConfigForm::crossKeyRuleShowsAtItsKey() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  form.showSection(QStringLiteral("model"));
  QVERIFY(QTest::qWaitForWindowExposed(&form));

  // 3 heads do not divide hidden_size 128: the message a file with heads = 3 gets.
  const QString expected =
      cliError([] { core::parseRunConfig(core::toToml(tiny()), "tiny", {"model.heads=3"}); });
  QVERIFY(expected.startsWith(QStringLiteral("model.heads: ")));
  typeInto(lineEdit(form, QStringLiteral("model.heads")), QStringLiteral("3"));
  QCOMPARE(form.errorFor(QStringLiteral("model.heads")), expected);
  QCOMPARE(form.findChild<QLabel*>(QStringLiteral("error:model.heads"))->text(), expected);
  QVERIFY(form.errorFor(QStringLiteral("model.hidden_size")).isEmpty());
  QVERIFY(!form.isValid());

  // Fixed from the other key of the rule.
  typeInto(lineEdit(form, QStringLiteral("model.hidden_size")), QStringLiteral("96"));
  QVERIFY(form.errorFor(QStringLiteral("model.heads")).isEmpty());
  QVERIFY2(form.isValid(), qPrintable(form.errors().join("; ")));
  QCOMPARE(form.config().model.hiddenSize, 96);

  // A rule is not judged on a key that does not parse: only the parse error shows.
  typeInto(lineEdit(form, QStringLiteral("model.heads")), QStringLiteral("x"));
  QCOMPARE(form.errors().size(), 1);
  QVERIFY(form.errors().front().startsWith(QStringLiteral("model.heads: expected an integer")));
}

void TestConfigForm::listsAreParsedAndChecked() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  QVERIFY(QTest::qWaitForWindowExposed(&form));

  // Free-text lists: one item per line (sentences may hold commas).
  form.showSection(QStringLiteral("log"));
  auto* sentences = form.findChild<QPlainTextEdit*>(QStringLiteral("log.snapshot_sentences"));
  QVERIFY(sentences);
  sentences->setFocus();
  QTest::keyClicks(sentences, QStringLiteral("The cat, the dog."));
  QTest::keyClick(sentences, Qt::Key_Return);
  QTest::keyClick(sentences, Qt::Key_Return);
  QTest::keyClicks(sentences, QStringLiteral("A bird."));
  QVERIFY(form.isValid());
  QCOMPARE(form.config().log.snapshotSentences,
           (std::vector<std::string>{"The cat, the dog.", "A bird."}));

  // Lists of choices: comma-separated, each item checked against the choices.
  form.showSection(QStringLiteral("attention"));
  clickCheckBox(form.variantSwitch(QStringLiteral("attention.guidance")));
  QLineEdit* heads = lineEdit(form, QStringLiteral("attention.guidance.heads"));
  QTRY_VERIFY(heads->isVisible());
  typeInto(heads, QStringLiteral("next, prev"));
  QVERIFY2(form.isValid(), qPrintable(form.errors().join("; ")));
  QCOMPARE(form.config().attention.guidance.heads,
           (std::vector<core::GuidancePattern>{core::GuidancePattern::Next,
                                               core::GuidancePattern::Prev}));
  typeInto(heads, QStringLiteral("next, sideways"));
  QCOMPARE(form.errorFor(QStringLiteral("attention.guidance.heads")),
           QStringLiteral("attention.guidance.heads: ") +
               cliReason([] {
                 core::parseRunConfig("[attention.guidance]\nheads = [\"next\", \"sideways\"]\n",
                                      "t");
               }).section(QStringLiteral(" ("), 0, 0));
  // Three patterns for two heads: the rule across keys, at the list.
  typeInto(heads, QStringLiteral("next, prev, first"));
  const QString expected = cliError([] {
    core::parseRunConfig(core::toToml(tiny()), "tiny",
                         {"attention.guidance.enabled=true",
                          "attention.guidance.heads=[\"next\", \"prev\", \"first\"]"});
  });
  QCOMPARE(form.errorFor(QStringLiteral("attention.guidance.heads")), expected);
}

void TestConfigForm::variantCheckboxRevealsItsOptions() {
  ConfigForm form;
  form.setConfig(tiny());
  form.resize(900, 700);
  form.show();
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  form.showSection(QStringLiteral("attention"));
  QCOMPARE(form.currentSection(), QStringLiteral("attention"));

  // Every mechanism of the schema has its switch, and all are off in a plain config.
  QVERIFY(form.variants().size() >= 5);
  for (const QString& id : form.variants()) {
    QCheckBox* toggle = form.variantSwitch(id);
    QVERIFY2(toggle, qPrintable(id));
    QVERIFY2(!toggle->isChecked(), qPrintable(id));
    QVERIFY2(toggle->isVisible(), qPrintable(id));
  }
  // Each paper's mechanism is there under its paper's title (the registry's name table).
  for (const auto& name : core::kMechanismNames) {
    const QString id =
        QStringLiteral("attention.") + QString::fromUtf8(name.id.data(), name.id.size());
    QVERIFY2(form.variants().contains(id), qPrintable(id));
    QCOMPARE(form.variantSwitch(id)->text().replace(QStringLiteral("&&"), QStringLiteral("&")),
             QString::fromUtf8(name.title.data(), name.title.size()));
  }

  // Attention guidance: its switch is the key attention.guidance.enabled.
  auto* guidance = form.findChild<QCheckBox*>(QStringLiteral("attention.guidance.enabled"));
  QCOMPARE(form.variantSwitch(QStringLiteral("attention.guidance")), guidance);
  QWidget* weight = form.editorFor(QStringLiteral("attention.guidance.weight"));
  QVERIFY(!weight->isVisible());
  clickCheckBox(guidance);
  QTRY_VERIFY(weight->isVisible());
  QVERIFY(form.config().attention.guidance.enabled);
  typeInto(qobject_cast<QLineEdit*>(weight), QStringLiteral("0.5"));
  QCOMPARE(form.config().attention.guidance.weight, 0.5);
  clickCheckBox(guidance);
  QTRY_VERIFY(!weight->isVisible());
  QVERIFY(!form.config().attention.guidance.enabled);
  QVERIFY(form.isValid());
}

void TestConfigForm::choiceVariantSwitchSetsItsChoice() {
  ConfigForm form;
  form.setConfig(tiny());
  form.resize(900, 700);
  form.show();
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  form.showSection(QStringLiteral("attention"));

  // Position interactions are switched by a choice (attention.position.mode, "none" = off).
  QCheckBox* toggle = form.variantSwitch(QStringLiteral("attention.position"));
  QCOMPARE(toggle->objectName(), QStringLiteral("variant:attention.position"));
  auto* mode = form.findChild<QComboBox*>(QStringLiteral("attention.position.mode"));
  QVERIFY(!mode->isVisible());
  clickCheckBox(toggle);
  QTRY_VERIFY(mode->isVisible());
  QVERIFY(form.config().attention.position.mode != core::PositionMode::None);
  // ... which collides with the learned position embeddings tiny keeps: the rule's message.
  const QString expected = cliError([&] {
    core::RunConfig c = tiny();
    c.attention.position.mode = form.config().attention.position.mode;
    core::validateRunConfig(c);
  });
  QCOMPARE(form.errorFor(QStringLiteral("attention.position.mode")), expected);
  QVERIFY(!form.isValid());

  // Choosing "none" in the combo switches it off again.
  mode->setFocus();
  mode->setCurrentIndex(mode->findText(QStringLiteral("relative")));
  QVERIFY(toggle->isChecked());
  mode->setCurrentIndex(mode->findText(QStringLiteral("none")));
  QVERIFY(!toggle->isChecked());
  QTRY_VERIFY(!mode->isVisible());
  QVERIFY(form.isValid());
  // Switching on again brings back the last flavour chosen.
  clickCheckBox(toggle);
  QCOMPARE(mode->currentText(), QStringLiteral("relative"));
}

void TestConfigForm::resetButtonRestoresTheDefault() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  form.showSection(QStringLiteral("model"));
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  // tiny sets model.layers = 2; the default is 4.
  auto* reset = form.findChild<QToolButton*>(QStringLiteral("reset:model.layers"));
  QVERIFY(reset->isVisible());
  auto* dropout = form.findChild<QToolButton*>(QStringLiteral("reset:model.dropout"));
  QVERIFY(!dropout->isVisible());  // still the default
  QTest::mouseClick(reset, Qt::LeftButton);
  QCOMPARE(lineEdit(form, QStringLiteral("model.layers"))->text(), QStringLiteral("4"));
  QCOMPARE(form.config().model.layers, core::RunConfig{}.model.layers);
  QTRY_VERIFY(!reset->isVisible());
}

// model.init_from's Browse… opens a folder dialog; the folder typed there and confirmed with
// Return fills the field and the configuration. Cancelled, the field keeps its text.
void TestConfigForm::browseFillsAFolderKey() {
  ConfigForm form;
  form.setConfig(tiny());
  form.show();
  form.showSection(QStringLiteral("model"));
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  QVERIFY(form.findChild<QToolButton*>(QStringLiteral("browse:model.layers")) == nullptr);
  auto* browse = form.findChild<QToolButton*>(QStringLiteral("browse:model.init_from"));
  QVERIFY(browse != nullptr && browse->isVisible());
  const QString folder =
      QDir(QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/fixtures/hf-bertmodel")).canonicalPath();
  answerFileDialog(folder);
  QTest::mouseClick(browse, Qt::LeftButton);
  QCOMPARE(lineEdit(form, QStringLiteral("model.init_from"))->text(), folder);
  QCOMPARE(QString::fromStdString(form.config().model.initFrom), folder);
  // ATTNLAB_FORM_SHOT=FILE.png: the Model page as filled, to look at.
  if (const QByteArray shot = qgetenv("ATTNLAB_FORM_SHOT"); !shot.isEmpty()) {
    form.resize(900, 420);
    form.focusKey(QStringLiteral("model.init_from"));
    QVERIFY(form.grab().save(QString::fromLocal8Bit(shot)));
  }
  answerFileDialog(QString());
  QTest::mouseClick(browse, Qt::LeftButton);
  QCOMPARE(lineEdit(form, QStringLiteral("model.init_from"))->text(), folder);
}

void TestConfigForm::editedOnlyForThePersonsChanges() {
  ConfigForm form;
  QSignalSpy edited(&form, &ConfigForm::edited);
  form.setConfig(tiny());
  QCOMPARE(edited.size(), 0);
  form.show();
  form.showSection(QStringLiteral("train"));
  QVERIFY(QTest::qWaitForWindowExposed(&form));
  typeInto(lineEdit(form, QStringLiteral("train.threads")), QStringLiteral("2"));
  QVERIFY(edited.size() >= 1);
  QCOMPARE(form.config().train.threads, 2);
  QCOMPARE(form.fieldText(QStringLiteral("train.threads")), QStringLiteral("2"));
}

QTEST_MAIN(TestConfigForm)
#include "test_config_form.moc"
