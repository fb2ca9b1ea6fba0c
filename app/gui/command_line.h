#pragma once
// The app's command line (attnlab [RUN_DIR...] [--train CONFIG ...]). It is read twice: before
// QApplication exists only --help and --version are looked at, so that they print on a machine
// without a display (QApplication aborts there, in its platform plugin); once QApplication has
// taken its own options (-platform, -style, ...), everything else.

#include <QString>
#include <QStringList>

#include <optional>

namespace attnlab::app {

/// What the command line asks the window to do at start.
struct GuiCommandLine {
  QStringList runs;           ///< run folders to open
  QString trainConfig;        ///< --train: a config file or preset name; empty: none
  QString runDir;             ///< --run-dir for --train; empty: <runs folder>/<run.name>
  QStringList overrides;      ///< --set key=value, in order
  int processes = 1;          ///< --nproc-per-node
  QString screenshot;         ///< --screenshot PNG path; empty: none
  qint64 screenshotStep = 0;  ///< --screenshot-step; 0: once the runs are loaded
  QString view;               ///< --view "Tab" or "Tab/inner tab"
  QString figure;             ///< --figure name
};

/// --help or --version: prints to stdout and returns the exit status (0), without a display
/// and before any window. std::nullopt when neither is given.
std::optional<int> printHelpOrVersion(int argc, char** argv, const char* version);

/// Reads every option; QApplication must exist. A malformed command line (an unknown option,
/// a missing value) prints Qt's message to stderr and exits with status 1, as QCommandLineParser
/// does.
GuiCommandLine parseGuiCommandLine();

}  // namespace attnlab::app
