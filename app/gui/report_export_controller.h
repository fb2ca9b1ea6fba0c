#pragma once

// File > Export report: the report bundle of one run (every figure in PNG, SVG and PDF, the
// analysis and probe reports, the resolved config, a summary and an index) written by the
// headless twin, `attnlab-cli export RUN --report DIR`, in a child process. The bundle is the
// same from the app and from the command line because it is the same program; the GUI
// thread only reads its progress lines, and Cancel kills it. The bundle is written into
// "<DIR>.part" and renamed to DIR when complete, so a cancelled or failed export leaves
// nothing half-written under the chosen name. A QObject without widgets.
// File > Export model is the same with `attnlab-cli export-model RUN --out DIR` (issue 29):
// a Hugging Face folder (config.json, model.safetensors, the tokenizer).

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <optional>

namespace attnlab::app {

/// What a controller exports: the report bundle, or the model as a Hugging Face folder.
enum class CliExportKind { Report, Model };

class ReportExportController : public QObject {
  Q_OBJECT
 public:
  explicit ReportExportController(QObject* parent = nullptr,
                                  CliExportKind kind = CliExportKind::Report);
  ~ReportExportController() override;  ///< kills an export in flight

  /// Starts exporting `runDir` into `outDir` (which must not exist or be empty). False with
  /// `whyNot` when one is running, the folder is taken, or attnlab-cli is not found.
  bool start(const QString& runDir, const QString& outDir, std::optional<qint64> step,
             QString* whyNot);
  void cancel();
  bool isRunning() const;
  /// The attnlab-cli this app runs: next to the app's own executable.
  static QString cliPath();

 signals:
  void started(const QString& outDir);
  /// One line of the export's output ("exported entropy-violins.png", ...).
  void progress(const QString& line);
  /// ok: the bundle is complete at `outDir` (index.md inside); else `error` says what.
  void finished(bool ok, const QString& outDir, const QString& error);

 private:
  void onFinished(int exitCode, QProcess::ExitStatus status);

  QStringList arguments(const QString& runDir, std::optional<qint64> step) const;
  QString noun() const;  ///< "report" or "model"

  CliExportKind m_kind;
  QProcess* m_process = nullptr;
  QString m_outDir, m_partDir, m_output;
  bool m_cancelled = false;
};

}  // namespace attnlab::app
