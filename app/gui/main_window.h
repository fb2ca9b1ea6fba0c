#pragma once

#include "app/gui/run_actions.h"

#include <QMainWindow>

class QStackedWidget;

namespace attnlab::app {

class AnalysisController;
class AppSettings;
class ConsoleDock;
class FigureView;
class Notices;
class OpenedRuns;
class PlotContextMenu;
class RunSession;
class RunStatusBar;
class RunsPanel;
class ThemeController;
class TrainingCoordinator;
class ViewTabs;
class WelcomePanel;
class WindowExports;

/// What the window is made of. Each part owns one concern (docs/app.md, "Who owns what");
/// the window builds them, wires them to each other and to the person's input, and holds no
/// state of its own beyond its layout.
struct WindowParts {
  AppSettings* settings = nullptr;          ///< every persisted key
  ThemeController* theme = nullptr;         ///< light, dark or the system's
  OpenedRuns* runs = nullptr;               ///< the runs open, each followed live
  TrainingCoordinator* training = nullptr;  ///< the run trained here, either back-end
  AnalysisController* analysis = nullptr;   ///< the tabs' jobs and the models they share
  Notices* notices = nullptr;               ///< what the person is told
  WindowExports* exports = nullptr;         ///< File > Export figure / report
  PlotContextMenu* plotMenu = nullptr;      ///< every plot's Export / Copy menu
  RunsPanel* runsPanel = nullptr;           ///< the sidebar
  ConsoleDock* console = nullptr;           ///< milestones, errors, output
  RunStatusBar* statusBar = nullptr;        ///< the trained run's progress
  ViewTabs* views = nullptr;                ///< the tabs
  WelcomePanel* welcome = nullptr;          ///< shown while no run is open
};

/// The workbench's top-level window: it builds its parts, the menus (window_menus.cpp) and
/// the docks, and wires the parts together; every view, controller and dialog lives in its
/// own file, and no engine object lives here.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  const WindowParts& parts() const { return m_parts; }

  /// Opens a run folder (or its run.h5); errors go to the console and a message box.
  RunSession* openRun(const QString& path);
  /// Opens each; runs named together are looked at together: all selected (curves
  /// overlaid, Compare).
  void openRuns(const QStringList& paths);
  /// Shows a tab by its title, and a tab inside it after a slash ("Analysis/Head
  /// summaries"), case-insensitively. False when no tab has that title.
  bool showView(const QString& spec);
  /// Figures > (one action per catalog figure): builds `figure` from the runs selected in
  /// the sidebar and opens it as a tab that can be exported. Returns the view (it shows the
  /// error when an input is missing); null when no run is selected.
  FigureView* openFigure(const QString& figure);

 public slots:
  void newRun();
  void openRunDialog();
  /// File > Open model: a Hugging Face model folder, opened as a run (OpenedRuns::open).
  void openModelDialog();
  /// Closes a run's views (not while this window trains it).
  void closeRun(attnlab::app::RunSession* run);
  void resetLayout();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildCentre();
  void buildDocks();
  void wireRuns();
  void wireTraining();
  void updateActions();
  void updateWelcome();

  WindowParts m_parts;
  RunActions m_runActions;
  QStackedWidget* m_centre = nullptr;  // the welcome while no run is open, else the tabs
  QByteArray m_defaultState;
  bool m_closeWhenStopped = false;
};

}  // namespace attnlab::app
