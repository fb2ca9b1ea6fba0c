#pragma once

// File > Export report: the report bundle of one run (every figure in PNG, SVG and PDF, the
// analysis and probe reports, the resolved config, a summary and an index) written by the
// headless twin, `attnlab-cli export RUN --report DIR`, in a child process. The bundle is the
// same from the app and from the command line because it is the same program (the figures
// are drawn by Qt widgets, which only a GUI thread may drive: in this process that would be
// the window's own thread). The child is run as a job on a JobRunner (its thread reads the
// output lines; Cancel kills the child), so the exports show in a JobBar like every other
// job. The bundle is written into "<DIR>.part" and renamed to DIR when complete, so a
// cancelled or failed export leaves nothing half-written under the chosen name. A QObject
// without widgets.
// File > Export model is the same with `attnlab-cli export-model RUN --out DIR` (issue 29):
// a Hugging Face folder (config.json, model.safetensors, the tokenizer).

#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace attnlab::app {

class JobRunner;

/// What a controller exports: the report bundle, or the model as a Hugging Face folder.
enum class CliExportKind { Report, Model };

class ReportExportController : public QObject {
  Q_OBJECT
 public:
  /// Runs on `runner` (shared by the window's exports: one export at a time), or on a runner
  /// of its own when null.
  explicit ReportExportController(QObject* parent = nullptr,
                                  CliExportKind kind = CliExportKind::Report,
                                  JobRunner* runner = nullptr);
  ~ReportExportController() override;  ///< kills an export in flight (its own runner)

  /// Starts exporting `runDir` into `outDir` (which must not exist or be empty). False with
  /// `whyNot` when one is running, the folder is taken, or attnlab-cli is not found.
  bool start(const QString& runDir, const QString& outDir, std::optional<qint64> step,
             QString* whyNot);
  void cancel();
  bool isRunning() const;
  JobRunner* runner() const { return m_runner; }
  /// The attnlab-cli this app runs: next to the app's own executable.
  static QString cliPath();

 signals:
  void started(const QString& outDir);
  /// One line of the export's output ("exported entropy-violins.png", ...).
  void progress(const QString& line);
  /// ok: the bundle is complete at `outDir` (index.md inside); else `error` says what.
  void finished(bool ok, const QString& outDir, const QString& error);

 private:
  QStringList arguments(const QString& runDir, const QString& partDir,
                        std::optional<qint64> step) const;
  QString noun() const;  ///< "report" or "model"

  CliExportKind m_kind;
  JobRunner* m_runner;
  bool m_ownsRunner;
  bool m_running = false;  ///< the runner's job is this controller's
};

}  // namespace attnlab::app
