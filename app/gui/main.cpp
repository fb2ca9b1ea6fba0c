#include "app/gui/main_window.h"
#include "core/runtime/compute_environment.h"

#include <QApplication>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("AttnLab"));
  QApplication::setOrganizationName(QStringLiteral("AttnLab"));
  attnlab::core::configureIntraOpThreads(0);
  attnlab::app::MainWindow window;
  window.show();
  return QApplication::exec();
}
