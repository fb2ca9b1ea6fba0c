#include "app/gui/jobs/job_bar.h"

#include "app/gui/jobs/job_runner.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

#include <algorithm>

namespace attnlab::app {

namespace {
QString capitalised(QString s) {
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}
}  // namespace

JobBar::JobBar(const QString& runText, const QString& name, QWidget* parent) : QWidget(parent) {
  setObjectName(name + QStringLiteral("JobBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_run = new QPushButton(runText, this);
  m_run->setObjectName(QStringLiteral("run%1Button").arg(capitalised(name)));
  layout->addWidget(m_run);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(name + QStringLiteral("Progress"));
  m_progress->setMinimumWidth(140);  // a long phase is elided to the bar (showProgress)
  m_progress->setMaximumWidth(420);
  m_progress->setVisible(false);
  layout->addWidget(m_progress, 1);
  m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancel%1Button").arg(capitalised(name)));
  m_cancel->setToolTip(QStringLiteral("Stop the job at its next check (within about a second)"));
  m_cancel->setVisible(false);
  layout->addWidget(m_cancel);
  m_status = new QLabel(this);
  m_status->setObjectName(name + QStringLiteral("Status"));
  m_status->setTextFormat(Qt::PlainText);  // messages may hold "<s>"
  layout->addWidget(m_status);
  connect(m_run, &QPushButton::clicked, this, &JobBar::runClicked);
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (m_runner && mine()) m_runner->cancel();
  });
  update();
}

bool JobBar::mine() const {
  return m_runner && m_runner->isRunning() && (m_mine || m_followsEveryJob);
}

void JobBar::setRunner(JobRunner* runner) {
  if (m_runner) disconnect(m_runner, nullptr, this, nullptr);
  m_runner = runner;
  if (runner) {
    connect(runner, &JobRunner::started, this, [this] {
      if (m_followsEveryJob) m_status->clear();
      m_progress->setRange(0, 0);  // busy until the first report
      m_progress->setFormat(QStringLiteral("starting"));
      update();
    });
    connect(runner, &JobRunner::progress, this, &JobBar::showProgress);
    connect(runner, &JobRunner::cancelRequested, this, [this] {
      if (mine()) m_status->setText(QStringLiteral("Cancelling…"));
      update();
    });
    connect(runner, &JobRunner::finished, this, &JobBar::showEnd);
  }
  update();
}

void JobBar::showProgress(const QString& phase, qint64 done, qint64 total) {
  if (!mine()) return;
  // Some phases count bytes or sequences in the millions: the bar works in per mille.
  m_progress->setRange(0, total > 0 ? 1000 : 0);
  m_progress->setValue(total > 0 ? static_cast<int>(1000 * std::min(done, total) / total) : 0);
  // One line: the phase elided to what the bar leaves beside the percentage.
  const QFontMetrics metrics = m_progress->fontMetrics();
  const int room = m_progress->width() - metrics.horizontalAdvance(QStringLiteral(" 100%")) - 16;
  const QString shown = metrics.elidedText(phase, Qt::ElideRight, std::max(room, 40));
  m_progress->setFormat(total > 0 ? QStringLiteral("%1 %p%").arg(shown) : shown);
  m_progress->setTextVisible(true);
  m_progress->setToolTip(total > 0 ? QStringLiteral("%1: %2 / %3").arg(phase).arg(done).arg(total)
                                   : phase);
}

void JobBar::showEnd(bool ok, bool cancelled, const QString& message) {
  const bool wasMine = m_mine || m_followsEveryJob;
  m_mine = false;
  if (wasMine) {
    // A job done shows its result where it belongs (the report, the map): the bar goes quiet.
    m_status->setText(ok          ? QString()
                      : cancelled ? QStringLiteral("Cancelled")
                                  : QStringLiteral("Failed: %1").arg(message.left(120)));
    m_status->setToolTip(ok ? QString() : message);
  }
  update();
}

void JobBar::setRunnable(bool runnable) {
  m_runnable = runnable;
  update();
}

void JobBar::setFollowsEveryJob(bool on) {
  m_followsEveryJob = on;
  update();
}

void JobBar::markStarted() {
  m_mine = m_runner && m_runner->isRunning();
  if (m_mine) m_status->clear();
  update();
}

QString JobBar::statusText() const {
  return m_status->text();
}

void JobBar::update() {
  const bool running = m_runner && m_runner->isRunning();
  const bool showing = mine();
  m_run->setEnabled(m_runnable && m_runner && !running);
  // While its job runs, the bar's progress and Cancel take the Run button's place.
  m_run->setVisible(!m_run->text().isEmpty() && !showing);
  m_progress->setVisible(showing);
  m_cancel->setVisible(showing);
  m_cancel->setEnabled(showing && !m_runner->isCancelling());
}

}  // namespace attnlab::app
