#pragma once
// What the window shows while no run is open: the ways to begin. A newcomer's list of runs is
// empty, so "select a run" would point at nothing; this offers New run, Open run, the demo's
// run when the README's main command has trained it, and the recent runs.

#include <QString>
#include <QStringList>
#include <QWidget>

class QVBoxLayout;
class QLabel;

namespace attnlab::app {

class WelcomePanel : public QWidget {
  Q_OBJECT
 public:
  explicit WelcomePanel(QWidget* parent = nullptr);

  /// Rebuilds the run buttons: the demo run (empty: none found) first, then the recent runs
  /// (most recent first; the demo is not listed twice).
  void setRuns(const QString& demoRun, const QStringList& recentRuns);
  /// The folders offered, in order, for tests.
  QStringList offeredRuns() const { return m_offered; }

  /// Where the demo's run is, if it exists: runs/tiny under the current folder (where
  /// packaging/setup-and-demo.sh trains it), else tiny under the app's runs folder.
  static QString findDemoRun(const QString& runsFolder);

 signals:
  void newRunRequested();
  void openRunRequested();
  void runRequested(const QString& directory);

 private:
  void addRunButton(const QString& directory, const QString& label);

  QVBoxLayout* m_runsLayout = nullptr;
  QLabel* m_runsHeading = nullptr;
  QStringList m_offered;
};

}  // namespace attnlab::app
