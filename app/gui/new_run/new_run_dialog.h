#pragma once

// File > New run: pick a preset or a config file, edit it in a form generated from the
// config schema, choose the run folder, and start (or resume) training. The dialog only
// gathers the choice; the caller reads config() and runDirectory() when it is accepted.

#include "core/config/run_config.h"

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

class QLayout;

namespace attnlab::app {

class AppSettings;
class ConfigForm;

class NewRunDialog : public QDialog {
  Q_OBJECT
 public:
  /// Runs folder from the settings (AppSettings::runsFolder); the preset is the last one
  /// used (AppSettings::lastPreset). The window passes its one AppSettings.
  explicit NewRunDialog(AppSettings* settings = nullptr, QWidget* parent = nullptr);
  /// With an explicit runs folder and initial preset (empty: as above); a null `settings`
  /// gives the dialog its own (tests).
  NewRunDialog(AppSettings* settings, const QString& runsFolder, const QString& preset,
               QWidget* parent = nullptr);
  NewRunDialog(const QString& runsFolder, const QString& preset, QWidget* parent = nullptr);

  /// The configuration to train with; meaningful while startButton() is enabled.
  core::RunConfig config() const;
  /// The chosen run folder (absolute, cleaned), or empty.
  QString runDirectory() const;
  /// True when runDirectory() already holds a run (run.h5 or checkpoints/): it is resumed.
  bool resumesExistingRun() const;
  /// Processes on this machine to train in: 1 trains inside the app; N > 1 launches
  /// `attnlab-cli train --nproc-per-node N` (data-parallel, docs/distributed.md).
  int processes() const;
  void setProcesses(int processes);
  /// The line under the processes box: global batch and threads per process.
  QString processesNote() const;
  QPushButton* startButton() const;
  ConfigForm* form() const;

  /// The folder new run folders are proposed in (`<runs folder>/<run.name>`).
  QString runsFolder() const;
  void setRunsFolder(const QString& folder);
  /// Loads a preset by name into the form; false (and the error shown) when it is not
  /// found or does not load.
  bool selectPreset(const QString& name);
  /// The preset whose content the form started from, or empty after Load… .
  QString currentPreset() const;

  /// Loads a TOML or JSON config file into the form (what Load… does after its file
  /// dialog). On errors the form keeps its content, the error area names the file and the
  /// problem as the CLI states it, Start stays disabled until something valid is chosen or
  /// a field is edited, and false is returned.
  bool loadFile(const QString& path);
  /// Writes the form's config as TOML (what Save as TOML… does); false and the error shown
  /// when it cannot be written or the config is invalid.
  bool saveToml(const QString& path);
  /// The visible text of the error area (empty when nothing failed).
  QString loadError() const;
  /// The summary line's message: the first problem of the form (and how many more), or
  /// why Start is disabled; empty when the run can start.
  QString summaryText() const;

  /// Stores the last preset, the runs folder and the OpenMP wait policy, then accepts.
  void accept() override;

 private:
  void build();
  // The parts of build(), in the dialog's order.
  QLayout* buildSource();
  QLayout* buildDirectoryColumn();
  QLayout* buildProcessesRow();
  QWidget* buildEngineGroup();
  QWidget* buildVerdictAndButtons();
  void populatePresets(const QString& preferred);
  void onPresetActivated(int index);
  void chooseLoadFile();
  void chooseSaveFile();
  void browseDirectory();
  void onRunNameMaybeChanged();
  void setLoadError(const QString& text);
  void updateState();
  void updateProcessesNote();

  ConfigForm* m_form = nullptr;
  QComboBox* m_preset = nullptr;
  QLabel* m_presetDescription = nullptr;
  QLabel* m_loadError = nullptr;
  QLineEdit* m_directory = nullptr;
  QLabel* m_directoryNote = nullptr;
  QComboBox* m_waitPolicy = nullptr;
  QSpinBox* m_processes = nullptr;
  QLabel* m_processesNote = nullptr;
  QLabel* m_summary = nullptr;
  QPushButton* m_start = nullptr;
  QPushButton* m_save = nullptr;
  AppSettings* m_settings;  // the window's, or the dialog's own
  QString m_runsFolder;
  QString m_presetName;
  /// False once the person edits or browses the directory: it then stops following run.name.
  bool m_directoryFollowsName = true;
  bool m_loadFailed = false;
};

}  // namespace attnlab::app
