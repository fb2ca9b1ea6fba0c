#pragma once

// The log console: every run's events and messages, one line each, prefixed with the run's
// name in its colour. Bounded, so a long run does not grow the window's memory.

#include "app/gui/run_session.h"

#include <QDockWidget>

class QPlainTextEdit;

namespace attnlab::app {

class ConsoleDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit ConsoleDock(QWidget* parent = nullptr);

  void append(const QString& runName, const QColor& colour, const RunMessage& message);
  /// An app message not tied to a run (open errors, ...).
  void appendNote(const QString& text, bool error = false);
  QString text() const;
  static constexpr int kMaxLines = 20000;

 private:
  QPlainTextEdit* m_text = nullptr;
};

}  // namespace attnlab::app
