#pragma once

#include <QMainWindow>

class QLabel;

namespace attnlab::app {

/// The workbench's top-level window. It stays small: views come from widgets/, actions
/// are wired to controllers, and no engine object lives here.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  /// The text of the environment panel (LibTorch build, threads, device).
  QString environmentSummary() const;

 private:
  QLabel* m_environment = nullptr;
};

}  // namespace attnlab::app
