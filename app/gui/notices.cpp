#include "app/gui/notices.h"

#include "app/gui/panels/console_dock.h"
#include "app/gui/run_session.h"

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

void Notices::runMessage(RunSession* run, const RunMessage& message) {
  m_console->append(run->name(), run->colour(), message);
  if (message.error) result(message.text, kErrorMs);
}

void Notices::runEnded(RunSession* run, RunStatus status, const QString& error) {
  const QString name = run ? run->name() : QStringLiteral("The run");
  if (status == RunStatus::Failed) {
    this->error(QStringLiteral("%1 failed: %2").arg(name, error));
  } else if (run) {
    // In the app a stopped run goes on with Resume, not with a command.
    const bool stopped = run->status() == RunStatus::Stopped;
    result(QStringLiteral("%1: %2%3")
               .arg(name, runStatusText(run->status()),
                    stopped ? QStringLiteral(" (Run > Resume continues it)") : QString()));
  }
}

void Notices::followMessages(RunSession* run, std::function<bool()> toldElsewhere) {
  connect(run, &RunSession::messagesAppended, this,
          [this, run, toldElsewhere = std::move(toldElsewhere)](int first) {
            if (toldElsewhere()) return;
            const auto& lines = run->messages();
            for (auto i = static_cast<std::size_t>(first); i < lines.size(); ++i)
              if (lines[i].wallTime > run->messagesShownUntil())
                m_console->append(run->name(), run->colour(), lines[i]);
          });
}

}  // namespace attnlab::app
