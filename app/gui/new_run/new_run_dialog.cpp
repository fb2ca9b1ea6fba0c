#include "app/gui/new_run/new_run_dialog.h"

#include "app/gui/app_settings.h"
#include "app/gui/new_run/config_form.h"
#include "app/gui/new_run/config_presets.h"
#include "core/config/config_loader.h"
#include "core/errors/error.h"
#include "core/runtime/gpu_info.h"
#include "core/runtime/torch_compat.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <torch/version.h>

#include <algorithm>
#include <exception>
#include <filesystem>

namespace attnlab::app {

namespace {

const QString kErrorColour = QStringLiteral("#c62828");

std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(QFile::encodeName(path).toStdString());
}

/// The command line's text for a failure: "<where>: <reason>" (Error::what()).
QString cliMessage(const std::exception& e) {
  return QString::fromStdString(e.what());
}

/// The devices a run can use (train.device = auto picks the first GPU), with links to the
/// device and precision keys of the form.
QString devicesText() {
  QStringList found;
  for (const auto& gpu : core::listGpus()) {
    found << QStringLiteral("GPU %1: %2")
                 .arg(gpu.index)
                 .arg(QString::fromStdString(core::describeGpu(gpu)).toHtmlEscaped());
  }
  if (found.isEmpty()) {
    // Why there is no GPU: a CPU-only LibTorch, or a CUDA one that sees none.
    const QString why =
        core::torch_compat::builtWithCuda()
            ? QStringLiteral("with CUDA %1; no GPU present")
                  .arg(QString::fromStdString(core::torch_compat::cudaRuntimeVersion()))
            : QStringLiteral("built without CUDA");
    found << QStringLiteral("CPU only (LibTorch %1, %2)").arg(QStringLiteral(TORCH_VERSION), why);
  }
  return QStringLiteral(
             "Devices: %1 · <a href=\"train.device\">train.device</a>, "
             "<a href=\"train.precision\">train.precision</a> on the Train page")
      .arg(found.join(QStringLiteral(", ")));
}

/// A folder that a new run must not go into by default: it holds a run, or anything at all.
bool folderIsTaken(const QString& dir) {
  const QFileInfo info(dir);
  return info.exists() && (!info.isDir() || !QDir(dir).isEmpty());
}

/// The preset's run name when <runsFolder>/<name> is free, else the first free "<name>-N": a
/// second demo run gets its own folder (and a name the runs list tells apart) instead of
/// resuming the first. A folder typed by hand is left as typed.
QString freshRunName(const QString& runsFolder, const QString& name) {
  if (name.isEmpty() || !folderIsTaken(runsFolder + QLatin1Char('/') + name)) return name;
  for (int n = 2;; ++n) {
    const QString candidate = QStringLiteral("%1-%2").arg(name).arg(n);
    if (!folderIsTaken(runsFolder + QLatin1Char('/') + candidate)) return candidate;
  }
}

}  // namespace

NewRunDialog::NewRunDialog(AppSettings* settings, QWidget* parent)
    : NewRunDialog(settings, QString(), QString(), parent) {}

NewRunDialog::NewRunDialog(const QString& runsFolder, const QString& preset, QWidget* parent)
    : NewRunDialog(nullptr, runsFolder, preset, parent) {}

NewRunDialog::NewRunDialog(AppSettings* settings, const QString& runsFolder, const QString& preset,
                           QWidget* parent)
    : QDialog(parent), m_settings(settings != nullptr ? settings : new AppSettings(this)) {
  m_runsFolder = runsFolder.isEmpty() ? m_settings->runsFolder() : runsFolder;
  build();
  populatePresets(preset.isEmpty() ? m_settings->lastPreset() : preset);
  updateState();
}

void NewRunDialog::build() {
  setWindowTitle(QStringLiteral("New run"));
  setObjectName(QStringLiteral("newRunDialog"));
  QLayout* source = buildSource();  // also the form, which the parts below link to
  auto* directoryForm = new QFormLayout;
  QLayout* directoryColumn = buildDirectoryColumn();
  directoryForm->addRow(QStringLiteral("Run &folder:"), directoryColumn);
  if (auto* label = qobject_cast<QLabel*>(directoryForm->labelForField(directoryColumn)))
    label->setBuddy(m_directory);
  QLayout* processesRow = buildProcessesRow();
  directoryForm->addRow(QStringLiteral("Pr&ocesses on this machine:"), processesRow);
  if (auto* label = qobject_cast<QLabel*>(directoryForm->labelForField(processesRow))) {
    label->setBuddy(m_processes);
    label->setToolTip(m_processes->toolTip());
  }
  QWidget* engine = buildEngineGroup();
  QWidget* buttons = buildVerdictAndButtons();

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(source);
  layout->addWidget(m_loadError);
  layout->addWidget(m_form, 1);
  layout->addLayout(directoryForm);
  layout->addWidget(engine);
  layout->addWidget(m_summary);
  layout->addWidget(buttons);
  resize(980, 760);
}

// --- where the config comes from: preset, Load…, Save as TOML…, the load error, the form ---
QLayout* NewRunDialog::buildSource() {
  m_preset = new QComboBox(this);
  m_preset->setObjectName(QStringLiteral("presetCombo"));
  m_preset->setPlaceholderText(QStringLiteral("(from a file)"));
  m_preset->setMinimumContentsLength(16);
  auto* presetLabel = new QLabel(QStringLiteral("&Preset:"), this);
  presetLabel->setBuddy(m_preset);
  auto* load = new QPushButton(QStringLiteral("&Load…"), this);
  load->setObjectName(QStringLiteral("loadButton"));
  load->setToolTip(QStringLiteral("Read a TOML or JSON run configuration into the form"));
  m_save = new QPushButton(QStringLiteral("Save as &TOML…"), this);
  m_save->setObjectName(QStringLiteral("saveButton"));
  m_save->setToolTip(QStringLiteral("Write the form's configuration, every key, as TOML"));
  m_presetDescription = new QLabel(this);
  m_presetDescription->setObjectName(QStringLiteral("presetDescription"));
  m_presetDescription->setForegroundRole(QPalette::PlaceholderText);
  m_presetDescription->setWordWrap(true);

  auto* source = new QHBoxLayout;
  source->addWidget(presetLabel);
  source->addWidget(m_preset);
  source->addWidget(m_presetDescription, 1);
  source->addWidget(load);
  source->addWidget(m_save);

  m_loadError = new QLabel(this);
  m_loadError->setObjectName(QStringLiteral("loadError"));
  m_loadError->setWordWrap(true);
  m_loadError->setTextFormat(Qt::PlainText);
  m_loadError->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_loadError->setStyleSheet(
      QStringLiteral(
          "QLabel { color: %1; border: 1px solid %1; border-radius: 3px; padding: 6px; }")
          .arg(kErrorColour));
  m_loadError->hide();

  m_form = new ConfigForm(this);
  m_form->setObjectName(QStringLiteral("configForm"));

  // activated, not currentIndexChanged: picking the shown preset again reloads it (after a
  // failed Load… or edits the person wants to drop).
  connect(m_preset, &QComboBox::activated, this, &NewRunDialog::onPresetActivated);
  connect(load, &QPushButton::clicked, this, &NewRunDialog::chooseLoadFile);
  connect(m_save, &QPushButton::clicked, this, &NewRunDialog::chooseSaveFile);
  connect(m_form, &ConfigForm::validityChanged, this, &NewRunDialog::updateState);
  connect(m_form, &ConfigForm::edited, this, [this] {
    // Editing is a choice of its own: the file that failed no longer blocks Start.
    m_loadFailed = false;
    onRunNameMaybeChanged();
    updateState();
  });
  return source;
}

// --- where the run goes ----------------------------------------------------------------------
QLayout* NewRunDialog::buildDirectoryColumn() {
  m_directory = new QLineEdit(this);
  m_directory->setObjectName(QStringLiteral("runDirectory"));
  m_directory->setPlaceholderText(QStringLiteral("folder for the run log, checkpoints and cache"));
  auto* browse = new QPushButton(QStringLiteral("&Browse…"), this);
  browse->setObjectName(QStringLiteral("browseButton"));
  m_directoryNote = new QLabel(this);
  m_directoryNote->setObjectName(QStringLiteral("directoryNote"));
  m_directoryNote->setWordWrap(true);
  auto* directoryRow = new QHBoxLayout;
  directoryRow->addWidget(m_directory, 1);
  directoryRow->addWidget(browse);
  auto* directoryColumn = new QVBoxLayout;
  directoryColumn->setSpacing(2);
  directoryColumn->addLayout(directoryRow);
  directoryColumn->addWidget(m_directoryNote);
  connect(browse, &QPushButton::clicked, this, &NewRunDialog::browseDirectory);
  connect(m_directory, &QLineEdit::textEdited, this, [this] { m_directoryFollowsName = false; });
  connect(m_directory, &QLineEdit::textChanged, this, &NewRunDialog::updateState);
  return directoryColumn;
}

// --- how many processes ------------------------------------------------------------------
QLayout* NewRunDialog::buildProcessesRow() {
  // One process trains inside the app; more are attnlab-cli's data-parallel launch. More
  // processes than cores would only take turns on them.
  const int cores = std::max(1, QThread::idealThreadCount());
  m_processes = new QSpinBox(this);
  m_processes->setObjectName(QStringLiteral("processesSpin"));
  m_processes->setRange(1, cores);
  m_processes->setValue(1);
  m_processes->setToolTip(
      QStringLiteral("<p>Data-parallel training on this machine: more than 1 starts "
                     "<code>attnlab-cli train --nproc-per-node N</code>, N worker processes "
                     "that train together over c10d Gloo on 127.0.0.1. Each process takes its "
                     "own micro-batches; the gradients are summed before every step, so the "
                     "global batch is batch size × accumulation × processes. Each process uses "
                     "cores / processes threads (%1 cores here) unless train.threads says "
                     "otherwise. Rank 0 writes the run: it shows as one run.</p><p>1 trains "
                     "inside the app. Pause and Checkpoint now are not available for a run in "
                     "several processes; Stop checkpoints it.</p>")
          .arg(cores));
  m_processesNote = new QLabel(this);
  m_processesNote->setObjectName(QStringLiteral("processesNote"));
  m_processesNote->setForegroundRole(QPalette::PlaceholderText);
  m_processesNote->setWordWrap(true);
  auto* processesRow = new QHBoxLayout;
  processesRow->addWidget(m_processes);
  processesRow->addWidget(m_processesNote, 1);
  connect(m_processes, &QSpinBox::valueChanged, this, &NewRunDialog::updateProcessesNote);
  return processesRow;
}

// --- engine: devices, the OpenMP wait policy, where the thread count is --------------------
QWidget* NewRunDialog::buildEngineGroup() {
  m_waitPolicy = new QComboBox(this);
  m_waitPolicy->setObjectName(QStringLiteral("ompWaitPolicy"));
  m_waitPolicy->addItem(QStringLiteral("Passive (recommended for the app)"),
                        QStringLiteral("passive"));
  m_waitPolicy->addItem(QStringLiteral("Active"), QStringLiteral("active"));
  m_waitPolicy->addItem(QStringLiteral("System default"), QStringLiteral("default"));
  m_waitPolicy->setToolTip(
      QStringLiteral("OMP_WAIT_POLICY for the training threads. Passive threads sleep between "
                     "parallel regions and leave the cores to the interface; active ones spin, "
                     "slightly faster on an otherwise idle machine."));
  const int stored = m_waitPolicy->findData(m_settings->ompWaitPolicy());
  m_waitPolicy->setCurrentIndex(stored < 0 ? 0 : stored);
  auto* waitNote = new QLabel(QStringLiteral("Takes effect the next time AttnLab starts."), this);
  waitNote->setForegroundRole(QPalette::PlaceholderText);
  // The thread count is a key of the run (train.threads); point at it rather than copy it.
  auto* threads = new QLabel(
      QStringLiteral("CPU threads: <a href=\"train.threads\">train.threads</a> on the Train page"),
      this);
  threads->setObjectName(QStringLiteral("threadsLink"));
  connect(threads, &QLabel::linkActivated, m_form, &ConfigForm::focusKey);
  auto* devices = new QLabel(devicesText(), this);
  devices->setObjectName(QStringLiteral("devicesLabel"));
  devices->setWordWrap(true);
  connect(devices, &QLabel::linkActivated, m_form, &ConfigForm::focusKey);
  auto* engine = new QGroupBox(QStringLiteral("Engine (this app, every run)"), this);
  engine->setObjectName(QStringLiteral("engineGroup"));
  auto* engineColumn = new QVBoxLayout(engine);
  engineColumn->addWidget(devices);
  auto* engineRow = new QHBoxLayout;
  engineColumn->addLayout(engineRow);
  engineRow->addWidget(new QLabel(QStringLiteral("OpenMP wait policy:"), engine));
  engineRow->addWidget(m_waitPolicy);
  engineRow->addWidget(waitNote);
  engineRow->addStretch(1);
  engineRow->addWidget(threads);
  return engine;
}

// --- verdict and buttons -------------------------------------------------------------------
QWidget* NewRunDialog::buildVerdictAndButtons() {
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("summary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  connect(m_summary, &QLabel::linkActivated, m_form, &ConfigForm::focusKey);
  auto* buttons = new QDialogButtonBox(this);
  m_start = buttons->addButton(QStringLiteral("Start"), QDialogButtonBox::AcceptRole);
  m_start->setObjectName(QStringLiteral("startButton"));
  m_start->setDefault(true);
  buttons->addButton(QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &NewRunDialog::reject);
  return buttons;
}

void NewRunDialog::populatePresets(const QString& preferred) {
  {
    const QSignalBlocker block(m_preset);
    m_preset->clear();
    for (const ConfigPreset& preset : configPresets()) {
      m_preset->addItem(preset.name, preset.path);
      m_preset->setItemData(m_preset->count() - 1, preset.description, Qt::ToolTipRole);
    }
    m_preset->setCurrentIndex(-1);
  }
  if (m_preset->count() == 0) {
    m_preset->setPlaceholderText(QStringLiteral("(no presets found)"));
    m_presetDescription->setText(
        QStringLiteral("No preset folder found; set ATTNLAB_CONFIG_DIR "
                       "or use Load…. The form shows the defaults."));
    onRunNameMaybeChanged();
    return;
  }
  QString name = preferred;
  if (m_preset->findText(name) < 0) name = AppSettings::defaultPreset();
  if (m_preset->findText(name) < 0) name = m_preset->itemText(0);
  selectPreset(name);
}

bool NewRunDialog::selectPreset(const QString& name) {
  const int index = m_preset->findText(name);
  if (index < 0) {
    setLoadError(QStringLiteral("There is no preset called \"%1\" (looked in: %2).")
                     .arg(name, configPresetDirectories().join(QStringLiteral(", "))));
    m_loadFailed = true;
    updateState();
    return false;
  }
  m_preset->setCurrentIndex(index);
  const QString path = m_preset->itemData(index).toString();
  try {
    core::RunConfig config = core::loadRunConfig(toPath(path));
    if (m_directoryFollowsName) {
      config.run.name =
          freshRunName(m_runsFolder, QString::fromStdString(config.run.name)).toStdString();
    }
    m_form->setConfig(config);
  } catch (const std::exception& e) {
    setLoadError(QStringLiteral("The preset \"%1\" does not load:\n%2").arg(name, cliMessage(e)));
    m_loadFailed = true;
    updateState();
    return false;
  }
  m_presetName = name;
  m_presetDescription->setText(m_preset->itemData(index, Qt::ToolTipRole).toString());
  m_presetDescription->setToolTip(path);
  setLoadError(QString());
  m_loadFailed = false;
  onRunNameMaybeChanged();
  updateState();
  return true;
}

QString NewRunDialog::currentPreset() const {
  return m_presetName;
}

void NewRunDialog::onPresetActivated(int index) {
  if (index >= 0) selectPreset(m_preset->itemText(index));
}

bool NewRunDialog::loadFile(const QString& path) {
  core::RunConfig config;
  try {
    config = core::loadRunConfig(toPath(path));
  } catch (const std::exception& e) {
    // The form keeps what it had; the file and the command line's message are in sight.
    setLoadError(QStringLiteral("Could not load %1:\n%2")
                     .arg(QDir::toNativeSeparators(path), cliMessage(e)));
    m_loadFailed = true;
    updateState();
    return false;
  }
  m_form->setConfig(config);
  m_presetName.clear();
  m_preset->setCurrentIndex(-1);  // the form no longer shows a preset
  m_presetDescription->setText(
      QStringLiteral("Loaded from %1").arg(QDir::toNativeSeparators(path)));
  m_presetDescription->setToolTip(path);
  m_settings->setLastConfigFolder(QFileInfo(path).absolutePath());
  setLoadError(QString());
  m_loadFailed = false;
  onRunNameMaybeChanged();
  updateState();
  return true;
}

bool NewRunDialog::saveToml(const QString& path) {
  if (!m_form->isValid()) {
    setLoadError(QStringLiteral("Not saved: the configuration has problems (see below)."));
    return false;
  }
  QSaveFile file(path);
  const QByteArray text = QByteArray::fromStdString(core::toToml(m_form->config()));
  if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
    setLoadError(QStringLiteral("Could not save %1: %2")
                     .arg(QDir::toNativeSeparators(path), file.errorString()));
    return false;
  }
  m_settings->setLastConfigFolder(QFileInfo(path).absolutePath());
  return true;
}

void NewRunDialog::chooseLoadFile() {
  const QString start = m_settings->lastConfigFolder(m_runsFolder);
  const QString path = QFileDialog::getOpenFileName(
      this, QStringLiteral("Load run configuration"), start,
      QStringLiteral("Run configurations (*.toml *.json);;All files (*)"));
  if (!path.isEmpty()) loadFile(path);
}

void NewRunDialog::chooseSaveFile() {
  const QString start = m_settings->lastConfigFolder(m_runsFolder) + QLatin1Char('/') +
                        m_form->fieldText(QStringLiteral("run.name")) + QStringLiteral(".toml");
  QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Save configuration as TOML"),
                                              start, QStringLiteral("TOML files (*.toml)"));
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += QStringLiteral(".toml");
  saveToml(path);
}

void NewRunDialog::browseDirectory() {
  const QString current = runDirectory();
  const QString start = !current.isEmpty() && QFileInfo(current).isDir() ? current : m_runsFolder;
  const QString dir = QFileDialog::getExistingDirectory(this, QStringLiteral("Run folder"), start);
  if (dir.isEmpty()) return;
  m_directoryFollowsName = false;
  m_directory->setText(QDir::toNativeSeparators(dir));
}

void NewRunDialog::onRunNameMaybeChanged() {
  if (!m_directoryFollowsName) return;
  QString name = m_form->fieldText(QStringLiteral("run.name")).trimmed();
  if (name.isEmpty()) return;
  // A name is one folder, not a path into others.
  name.replace(QLatin1Char('/'), QLatin1Char('_'));
  name.replace(QLatin1Char('\\'), QLatin1Char('_'));
  m_directory->setText(
      QDir::toNativeSeparators(QDir::cleanPath(m_runsFolder + QLatin1Char('/') + name)));
}

QString NewRunDialog::runsFolder() const {
  return m_runsFolder;
}

void NewRunDialog::setRunsFolder(const QString& folder) {
  m_runsFolder = folder;
  onRunNameMaybeChanged();
  updateState();
}

void NewRunDialog::setLoadError(const QString& text) {
  m_loadError->setText(text);
  m_loadError->setVisible(!text.isEmpty());
}

QString NewRunDialog::loadError() const {
  return m_loadError->isVisibleTo(this) ? m_loadError->text() : QString();
}

core::RunConfig NewRunDialog::config() const {
  return m_form->config();
}

QString NewRunDialog::runDirectory() const {
  QString text = m_directory->text().trimmed();
  if (text.isEmpty()) return {};
  if (text == QLatin1String("~") || text.startsWith(QLatin1String("~/"))) {
    text = QDir::homePath() + text.mid(1);
  }
  return QDir::cleanPath(QFileInfo(QDir::fromNativeSeparators(text)).absoluteFilePath());
}

bool NewRunDialog::resumesExistingRun() const {
  const QString dir = runDirectory();
  if (dir.isEmpty()) return false;
  return QFileInfo(dir + QStringLiteral("/run.h5")).isFile() ||
         QFileInfo(dir + QStringLiteral("/checkpoints")).isDir();
}

int NewRunDialog::processes() const {
  return m_processes->value();
}

void NewRunDialog::setProcesses(int processes) {
  m_processes->setValue(processes);
}

QString NewRunDialog::processesNote() const {
  return m_processesNote->text();
}

void NewRunDialog::updateProcessesNote() {
  const int n = m_processes->value();
  if (n <= 1) {
    m_processesNote->setText(QStringLiteral("Trains inside the app."));
    return;
  }
  // From the form's text, so the note follows an edit before it is valid.
  bool batchOk = false, accumulationOk = false, threadsOk = false;
  const int batch = m_form->fieldText(QStringLiteral("train.batch_size")).toInt(&batchOk);
  const int accumulation =
      m_form->fieldText(QStringLiteral("train.gradient_accumulation")).toInt(&accumulationOk);
  const int threads = m_form->fieldText(QStringLiteral("train.threads")).toInt(&threadsOk);
  const QString global = batchOk && accumulationOk
                             ? QStringLiteral("%1 × %2 × %3 = %4 sequences per step")
                                   .arg(batch)
                                   .arg(accumulation)
                                   .arg(n)
                                   .arg(batch * accumulation * n)
                             : QStringLiteral("batch size × accumulation × %1").arg(n);
  const int cores = std::max(1, QThread::idealThreadCount());
  const QString perProcess =
      threadsOk && threads > 0
          ? QStringLiteral("%1 thread%2 each (train.threads)")
                .arg(threads)
                .arg(threads == 1 ? QString() : QStringLiteral("s"))
          : QStringLiteral("%1 thread%2 each")
                .arg(std::max(1, cores / n))
                .arg(std::max(1, cores / n) == 1 ? QString() : QStringLiteral("s"));
  m_processesNote->setText(
      QStringLiteral("attnlab-cli trains in %1 processes: global batch %2, %3.")
          .arg(n)
          .arg(global, perProcess));
}

QPushButton* NewRunDialog::startButton() const {
  return m_start;
}

ConfigForm* NewRunDialog::form() const {
  return m_form;
}

QString NewRunDialog::summaryText() const {
  const QStringList problems = m_form->errors();
  if (!problems.isEmpty()) {
    QString text = problems.front();
    if (problems.size() > 1) text += QStringLiteral(" (and %1 more)").arg(problems.size() - 1);
    return text;
  }
  if (m_loadFailed) {
    return QStringLiteral(
        "The file above did not load: choose a preset or another file, or edit "
        "the form.");
  }
  if (runDirectory().isEmpty()) return QStringLiteral("Choose a run folder.");
  return {};
}

void NewRunDialog::updateState() {
  updateProcessesNote();
  const bool resume = resumesExistingRun();
  m_start->setText(resume ? QStringLiteral("Resume") : QStringLiteral("Start"));
  const QString dir = runDirectory();
  if (resume) {
    m_directoryNote->setText(
        QStringLiteral("This folder holds a run: it will resume from its latest checkpoint."));
  } else if (!dir.isEmpty() && QFileInfo(dir).isDir() && !QDir(dir).isEmpty()) {
    m_directoryNote->setText(
        QStringLiteral("This folder exists and is not empty; the run's files go next to what "
                       "is there."));
  } else if (!dir.isEmpty()) {
    m_directoryNote->setText(QStringLiteral("A new run: its log, checkpoints and cache go here."));
  } else {
    m_directoryNote->clear();
  }

  const QString summary = summaryText();
  const QStringList problems = m_form->errors();
  if (summary.isEmpty()) {
    m_summary->setText(QStringLiteral("Ready."));
    m_summary->setStyleSheet(QString());
  } else if (!problems.isEmpty()) {
    // The first problem links to its field, on whichever page it is.
    const QString first = problems.front();
    const QString key = first.left(first.indexOf(QStringLiteral(": ")));
    QString html = QStringLiteral("<b>%1 problem%2:</b> <a href=\"%3\" style=\"color: %4\">%5</a>")
                       .arg(problems.size())
                       .arg(problems.size() == 1 ? QString() : QStringLiteral("s"))
                       .arg(key.toHtmlEscaped(), kErrorColour, first.toHtmlEscaped());
    if (problems.size() > 1) html += QStringLiteral(" (and %1 more)").arg(problems.size() - 1);
    m_summary->setText(html);
    m_summary->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColour));
  } else {
    m_summary->setText(summary.toHtmlEscaped());
    m_summary->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColour));
  }

  const bool valid = m_form->isValid();
  m_save->setEnabled(valid);
  m_start->setEnabled(valid && !dir.isEmpty() && !m_loadFailed);
}

void NewRunDialog::accept() {
  if (!m_start->isEnabled()) return;
  if (!m_presetName.isEmpty()) m_settings->setLastPreset(m_presetName);
  // The runs folder is where this run went: the proposed one, or the parent of the folder
  // the person chose.
  const QString folder =
      m_directoryFollowsName ? m_runsFolder : QFileInfo(runDirectory()).absolutePath();
  m_settings->setRunsFolder(folder);
  m_settings->setOmpWaitPolicy(m_waitPolicy->currentData().toString());
  QDialog::accept();
}

}  // namespace attnlab::app
