#pragma once

// The status-bar part that shows this process' engine: phase or training progress, tokens/s
// and the ETA. Plain widgets; the main window feeds it from TrainingController.

#include "app/gui/training_session.h"

#include <QWidget>

class QLabel;
class QProgressBar;

namespace attnlab::app {

class RunStatusBar : public QWidget {
  Q_OBJECT
 public:
  explicit RunStatusBar(QWidget* parent = nullptr);

  void showProgress(const QString& runName, const EngineProgress& progress, RunStatus status);
  void showIdle();
  /// "1:02:03" / "4:05" for an ETA in seconds.
  static QString formatDuration(double seconds);
  /// "45.1 MB/s · ETA 0:16" for a data phase that counts bytes; empty before any progress.
  static QString dataRate(const EngineProgress& progress);
  static constexpr double kMb = 1024.0 * 1024.0;
  QString text() const;

 private:
  QLabel* m_label = nullptr;
  QProgressBar* m_bar = nullptr;
  QLabel* m_rate = nullptr;
};

}  // namespace attnlab::app
