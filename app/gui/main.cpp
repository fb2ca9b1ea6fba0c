#include "app/gui/main_window.h"
#include "core/runtime/compute_environment.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("AttnLab"));
  QApplication::setOrganizationName(QStringLiteral("AttnLab"));
  QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("AttnLab: pretraining and attention analysis"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Render the main window to a PNG file once it is shown, then exit."),
      QStringLiteral("file"));
  parser.addOption(screenshot);
  parser.process(app);

  attnlab::core::configureIntraOpThreads(0);
  attnlab::app::MainWindow window;
  window.show();

  if (parser.isSet(screenshot)) {
    const QString path = parser.value(screenshot);
    // After the first paint, so the window has its final layout.
    QTimer::singleShot(500, &window, [&window, path] {
      const bool ok = window.grab().save(path, "PNG");
      if (!ok) std::fprintf(stderr, "attnlab: cannot write the screenshot %s\n", qPrintable(path));
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return QApplication::exec();
}
