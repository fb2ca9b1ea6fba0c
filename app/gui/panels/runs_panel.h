#pragma once

// The sidebar: every open run with its colour, status and step / total. Selecting runs
// chooses what the main area shows; the buttons act on the current run.

#include "app/gui/run_session.h"

#include <QList>
#include <QWidget>

class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace attnlab::app {

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  void addRun(RunSession* run);
  void removeRun(RunSession* run);
  /// Selects `run` only (e.g. the run just started or opened).
  void selectOnly(RunSession* run);
  QList<RunSession*> selectedRuns() const;
  /// The run the buttons act on: the first selected.
  RunSession* currentRun() const;
  /// The text shown for a run ("tiny · training · 120 / 2000"), for tests.
  QString rowText(RunSession* run) const;
  /// The run's name, with its folder's name where another opened run has the same name.
  QString displayName(RunSession* run) const;
  QListWidget* list() const { return m_list; }

 signals:
  void selectionChanged(const QList<attnlab::app::RunSession*>& runs);
  void resumeRequested(attnlab::app::RunSession* run);
  void stopRequested(attnlab::app::RunSession* run);
  void closeRequested(attnlab::app::RunSession* run);

 private:
  void refreshAll();
  QListWidgetItem* itemOf(RunSession* run) const;
  void refresh(RunSession* run);
  void updateButtons();

  QListWidget* m_list = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_stop = nullptr;
  QPushButton* m_close = nullptr;
};

}  // namespace attnlab::app
