#include "app/gui/app_settings.h"
#include "app/gui/distributed_run_launcher.h"
#include "app/gui/main_window.h"
#include "app/gui/opened_runs.h"
#include "app/gui/panels/runs_panel.h"
#include "app/gui/training_controller.h"
#include "core/config/config_loader.h"
#include "core/config/config_presets.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QListWidget>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

// libgomp reads OMP_WAIT_POLICY once, when it is loaded, before main() runs. To apply the
// app's setting (passive by default: idle OpenMP threads sleep instead of spinning, so the
// GUI and the log reader get the cores between the engine's parallel regions) the app
// re-executes itself once with the variable set. An explicit OMP_WAIT_POLICY wins.
void applyOmpWaitPolicy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("ATTNLAB_OMP_APPLIED") != nullptr)
    return;
  const QString policy = attnlab::app::AppSettings().ompWaitPolicy();
  if (policy != QStringLiteral("passive") && policy != QStringLiteral("active")) return;
  setenv("OMP_WAIT_POLICY", policy.toUpper().toLatin1().constData(), 1);
  setenv("ATTNLAB_OMP_APPLIED", "1", 1);
  execv("/proc/self/exe", argv);
  // execv only returns on failure: go on with the inherited policy.
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication::setApplicationName(QStringLiteral("AttnLab"));
  QCoreApplication::setOrganizationName(QStringLiteral("AttnLab"));
  applyOmpWaitPolicy(argv);

  QApplication app(argc, argv);
  QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
  QApplication::setApplicationDisplayName(QStringLiteral("AttnLab"));
  // Ties the window to the installed desktop entry (its icon and name on Wayland).
  QGuiApplication::setDesktopFileName(QStringLiteral(ATTNLAB_APP_ID));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("AttnLab: pretrain BERT-style encoders and study their attention. Opens "
                     "the run folders given as arguments (finished, stopped, or still being "
                     "written by attnlab-cli train, which is then followed live)."));
  parser.addHelpOption();
  // Not addVersionOption(): that prints the application name "AttnLab" (also the settings'
  // folder); the program is called attnlab, as its man page and attnlab-cli --version say.
  const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                   QStringLiteral("Displays version information."));
  parser.addOption(version);
  parser.addPositionalArgument(QStringLiteral("runs"), QStringLiteral("Run folders to open."),
                               QStringLiteral("[RUN_DIR...]"));
  const QCommandLineOption train(QStringLiteral("train"),
                                 QStringLiteral("Start training this config (a TOML or JSON "
                                                "file, or a preset name such as tiny) in the "
                                                "window, as File > New run does."),
                                 QStringLiteral("config"));
  const QCommandLineOption runDir(QStringLiteral("run-dir"),
                                  QStringLiteral("Run folder for --train (default: "
                                                 "<runs folder>/<run.name>)."),
                                  QStringLiteral("dir"));
  const QCommandLineOption set(QStringLiteral("set"),
                               QStringLiteral("Override a config key for --train, key=value "
                                              "(repeatable)."),
                               QStringLiteral("key=value"));
  const QCommandLineOption processes(
      QStringLiteral("nproc-per-node"),
      QStringLiteral("With --train: train in this many processes on this machine "
                     "(attnlab-cli train --nproc-per-node, data-parallel), as the New run "
                     "dialog's Processes box does (default 1: inside the app)."),
      QStringLiteral("n"), QStringLiteral("1"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Save the window as a PNG once the opened runs are loaded (or once "
                     "training reaches --screenshot-step), then exit."),
      QStringLiteral("file"));
  const QCommandLineOption screenshotStep(QStringLiteral("screenshot-step"),
                                          QStringLiteral("With --train and --screenshot: take "
                                                         "the screenshot at this step."),
                                          QStringLiteral("step"));
  const QCommandLineOption view(
      QStringLiteral("view"),
      QStringLiteral("The tab to show first: Curves, Attention, Inspect, "
                     "Variants, Analysis, Probe or Compare; a view inside a tab after a "
                     "slash, e.g. \"Analysis/Head summaries\"."),
      QStringLiteral("tab"));
  const QCommandLineOption figure(
      QStringLiteral("figure"),
      QStringLiteral("Open this figure of the Figures menu (a name of attnlab-cli export "
                     "--list) from the opened runs."),
      QStringLiteral("name"));
  parser.addOptions({train, runDir, set, processes, screenshot, screenshotStep, view, figure});
  parser.process(app);
  if (parser.isSet(version)) {
    std::printf("attnlab %s\n", ATTNLAB_VERSION);
    return 0;
  }

  attnlab::app::MainWindow window;
  window.show();
  for (const QString& path : parser.positionalArguments()) window.openRun(path);
  // Runs named together are looked at together: all selected (curves overlaid, Compare).
  if (parser.positionalArguments().size() > 1) window.runsPanel()->list()->selectAll();
  if (parser.isSet(view)) {
    // "Analysis/Head summaries": a tab, then a tab inside it.
    const QStringList parts = parser.value(view).split(QLatin1Char('/'));
    for (int i = 0; i < window.views()->count(); ++i)
      if (window.views()->tabText(i).compare(parts.front(), Qt::CaseInsensitive) == 0)
        window.views()->setCurrentIndex(i);
    if (parts.size() > 1) {
      for (QTabWidget* inner : window.views()->currentWidget()->findChildren<QTabWidget*>())
        for (int i = 0; i < inner->count(); ++i)
          if (inner->tabText(i).compare(parts[1], Qt::CaseInsensitive) == 0)
            inner->setCurrentIndex(i);
    }
  }

  if (parser.isSet(figure)) window.openFigure(parser.value(figure));

  if (parser.isSet(train)) {
    std::vector<std::string> overrides;
    for (const QString& s : parser.values(set)) overrides.push_back(s.toStdString());
    try {
      const auto config = attnlab::core::loadRunConfig(
          attnlab::core::resolveConfigArgument(parser.value(train).toStdString()), overrides);
      const QString dir = parser.isSet(runDir)
                              ? parser.value(runDir)
                              : attnlab::app::AppSettings().runsFolder() + QLatin1Char('/') +
                                    QString::fromStdString(config.run.name);
      if (!window.startTraining(config, dir, std::max(1, parser.value(processes).toInt())))
        return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnlab: %s\n", e.what());
      return 1;
    }
  }

  if (parser.isSet(screenshot)) {
    const QString path = parser.value(screenshot);
    const qint64 wantStep = parser.value(screenshotStep).toLongLong();
    auto* poll = new QTimer(&window);
    auto waited = std::make_shared<int>(0);
    QObject::connect(poll, &QTimer::timeout, &window, [&window, path, wantStep, poll, waited] {
      *waited += 100;
      bool ready = true;
      for (auto* run : window.openedRuns()->runs()) {
        ready = ready && run->status() != attnlab::app::RunStatus::Opening;
        if (wantStep > 0 && attnlab::app::isActiveHere(run->status()))
          ready = ready && run->step() >= wantStep;
      }
      // Give up waiting after 10 minutes; a screenshot of what is there beats none.
      if (!ready && *waited < 600000) return;
      poll->stop();
      // One more event-loop round so the last batch is painted.
      QTimer::singleShot(1500, &window, [&window, path] {
        const bool ok = window.grab().save(path, "PNG");
        if (!ok)
          std::fprintf(stderr, "attnlab: cannot write the screenshot %s\n", qPrintable(path));
        if (window.training()->isRunning()) {
          QObject::connect(window.training(), &attnlab::app::TrainingController::finished, qApp,
                           [ok] { QApplication::exit(ok ? 0 : 1); });
          window.training()->stop();
        } else if (window.launcher()->isRunning()) {
          QObject::connect(window.launcher(), &attnlab::app::DistributedRunLauncher::finished, qApp,
                           [ok] { QApplication::exit(ok ? 0 : 1); });
          window.launcher()->stop();
        } else {
          QApplication::exit(ok ? 0 : 1);
        }
      });
    });
    poll->start(100);
  }
  return QApplication::exec();
}
