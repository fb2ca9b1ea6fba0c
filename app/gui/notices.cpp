#include "app/gui/notices.h"

#include "app/gui/panels/console_dock.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>

namespace attnlab::app {

Notices::Notices(QMainWindow* window, ConsoleDock* console)
    : QObject(window), m_window(window), m_console(console) {}

void Notices::error(const QString& text) {
  m_lastError = text;
  m_console->appendNote(text, /*error=*/true);
  m_window->statusBar()->showMessage(text, kErrorMs);
  auto* box = new QMessageBox(QMessageBox::Warning, QStringLiteral("AttnLab"), text,
                              QMessageBox::Ok, m_window);
  box->setObjectName(QStringLiteral("errorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // not exec(): the window (and a run) keep going behind it
}

void Notices::result(const QString& text, int ms) {
  m_window->statusBar()->showMessage(text, ms);
}

void Notices::progress(const QString& text) {
  m_window->statusBar()->showMessage(text);
}

void Notices::exportSucceeded(const QString& path) {
  result(QStringLiteral("Exported %1").arg(path));
}

void Notices::exportFailed(const QString& error) {
  this->error(QStringLiteral("Export failed: %1").arg(error));
}

}  // namespace attnlab::app
