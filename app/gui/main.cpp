#include "app/gui/app_settings.h"
#include "app/gui/command_line.h"
#include "app/gui/main_window.h"
#include "app/gui/opened_runs.h"
#include "app/gui/training_coordinator.h"
#include "core/config/config_loader.h"
#include "core/config/config_presets.h"
#include "core/runtime/blas_kernels.h"

#include <QApplication>
#include <QTimer>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

// libgomp reads OMP_WAIT_POLICY and OpenBLAS reads OPENBLAS_CORETYPE once, when they are
// loaded, before main() runs. To apply the app's wait policy (passive by default: idle OpenMP
// threads sleep instead of spinning, so the GUI and the log reader get the cores between the
// engine's parallel regions) and OpenBLAS's widest kernels where it chose narrow ones
// (core/runtime/blas_kernels.h), the app re-executes itself once with the variables set.
// An explicit OMP_WAIT_POLICY or OPENBLAS_CORETYPE wins.
bool requestOmpWaitPolicy() {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("ATTNLAB_OMP_APPLIED") != nullptr)
    return false;
  const QString policy = attnlab::app::AppSettings().ompWaitPolicy();
  if (policy != QStringLiteral("passive") && policy != QStringLiteral("active")) return false;
  setenv("OMP_WAIT_POLICY", policy.toUpper().toLatin1().constData(), 1);
  setenv("ATTNLAB_OMP_APPLIED", "1", 1);
  return true;
}

void applyLoadTimeEnvironment(char** argv) {
  const bool blas = attnlab::core::requestBetterBlasKernels();
  const bool omp = requestOmpWaitPolicy();
  if (blas || omp) execv("/proc/self/exe", argv);
  // execv only returns on failure: go on with what was loaded.
}

// --train: false when the config cannot be read or training cannot start (said on stderr or
// in the window).
bool startTraining(attnlab::app::MainWindow& window, const attnlab::app::GuiCommandLine& c) {
  std::vector<std::string> overrides;
  for (const QString& s : c.overrides) overrides.push_back(s.toStdString());
  try {
    const auto config = attnlab::core::loadRunConfig(
        attnlab::core::resolveConfigArgument(c.trainConfig.toStdString()), overrides);
    const QString dir = !c.runDir.isEmpty()
                            ? c.runDir
                            : attnlab::app::AppSettings().runsFolder() + QLatin1Char('/') +
                                  QString::fromStdString(config.run.name);
    return window.parts().training->start(config, dir, c.processes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return false;
  }
}

// Saves the window and exits once it is worth looking at, stopping any training first.
void saveAndQuit(attnlab::app::MainWindow& window, const QString& path) {
  const bool ok = window.grab().save(path, "PNG");
  if (!ok) std::fprintf(stderr, "attnlab: cannot write the screenshot %s\n", qPrintable(path));
  if (attnlab::app::TrainingSession* session = window.parts().training->session();
      session != nullptr && session->isRunning()) {
    QObject::connect(session, &attnlab::app::TrainingSession::finished, qApp,
                     [ok] { QApplication::exit(ok ? 0 : 1); });
    session->stop();
  } else {
    QApplication::exit(ok ? 0 : 1);
  }
}

// --screenshot: polls until the opened runs are loaded (and training reached wantStep).
void scheduleScreenshot(attnlab::app::MainWindow& window, const QString& path, qint64 wantStep) {
  auto* poll = new QTimer(&window);
  auto waited = std::make_shared<int>(0);
  QObject::connect(poll, &QTimer::timeout, &window, [&window, path, wantStep, poll, waited] {
    *waited += 100;
    bool ready = true;
    for (auto* run : window.parts().runs->runs()) {
      ready = ready && run->status() != attnlab::app::RunStatus::Opening;
      if (wantStep > 0 && attnlab::app::isActiveHere(run->status()))
        ready = ready && run->step() >= wantStep;
    }
    // Give up waiting after 10 minutes; a screenshot of what is there beats none.
    if (!ready && *waited < 600000) return;
    poll->stop();
    // One more event-loop round so the last batch is painted.
    QTimer::singleShot(1500, &window, [&window, path] { saveAndQuit(window, path); });
  });
  poll->start(100);
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication::setApplicationName(QStringLiteral("AttnLab"));
  QCoreApplication::setOrganizationName(QStringLiteral("AttnLab"));
  if (const auto status = attnlab::app::printHelpOrVersion(argc, argv, ATTNLAB_VERSION))
    return *status;
  applyLoadTimeEnvironment(argv);

  QApplication app(argc, argv);
  QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
  QApplication::setApplicationDisplayName(QStringLiteral("AttnLab"));
  // Ties the window to the installed desktop entry (its icon and name on Wayland).
  QGuiApplication::setDesktopFileName(QStringLiteral(ATTNLAB_APP_ID));
  const attnlab::app::GuiCommandLine command = attnlab::app::parseGuiCommandLine();

  attnlab::app::MainWindow window;
  window.show();
  window.openRuns(command.runs);
  if (!command.view.isEmpty() && !window.showView(command.view))
    std::fprintf(stderr, "attnlab: --view %s: no tab has that name\n", qPrintable(command.view));
  if (!command.figure.isEmpty()) window.openFigure(command.figure);
  if (!command.trainConfig.isEmpty() && !startTraining(window, command)) return 1;
  if (!command.screenshot.isEmpty())
    scheduleScreenshot(window, command.screenshot, command.screenshotStep);
  return QApplication::exec();
}
