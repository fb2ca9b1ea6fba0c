#include "app/gui/panels/job_bar.h"

#include "app/gui/analysis_controller.h"

#include <QHBoxLayout>
#include <QProgressBar>
#include <QPushButton>

namespace attnlab::app {

namespace {
QString capitalised(QString s) {
  if (!s.isEmpty()) s[0] = s[0].toUpper();
  return s;
}
}  // namespace

JobBar::JobBar(const QString& runText, const QString& name, QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_run = new QPushButton(runText, this);
  m_run->setObjectName(QStringLiteral("run%1Button").arg(capitalised(name)));
  layout->addWidget(m_run);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(name + QStringLiteral("Progress"));
  m_progress->setMaximumWidth(260);
  m_progress->setVisible(false);
  layout->addWidget(m_progress);
  m_cancel = new QPushButton(QStringLiteral("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancel%1Button").arg(capitalised(name)));
  m_cancel->setVisible(false);
  layout->addWidget(m_cancel);
  connect(m_run, &QPushButton::clicked, this, &JobBar::runClicked);
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (m_controller && m_mine) m_controller->cancel();
    m_cancel->setEnabled(false);
  });
  update();
}

void JobBar::setController(AnalysisController* controller) {
  m_controller = controller;
  connect(controller, &AnalysisController::started, this, [this] {
    m_progress->setRange(0, 0);  // busy until the first report
    m_progress->setFormat(QStringLiteral("starting"));
    update();
  });
  connect(controller, &AnalysisController::progress, this,
          [this](const QString& phase, qint64 done, qint64 total) {
            if (!m_mine) return;
            // Some phases count bytes or sequences in the millions: the bar works in per
            // mille.
            m_progress->setRange(0, total > 0 ? 1000 : 0);
            m_progress->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
            m_progress->setFormat(QStringLiteral("%1 %p%").arg(phase));
            m_progress->setTextVisible(true);
          });
  connect(controller, &AnalysisController::finished, this,
          [this](bool ok, bool cancelled, const QString& message, const QString& report) {
            const bool mine = m_mine;
            m_mine = false;
            update();
            if (mine) emit jobFinished(ok, cancelled, message, report);
          });
  update();
}

void JobBar::setRunnable(bool runnable) {
  m_runnable = runnable;
  update();
}

void JobBar::markStarted() {
  m_mine = m_controller && m_controller->isRunning();
  m_cancel->setEnabled(true);
  update();
}

void JobBar::update() {
  const bool running = m_controller && m_controller->isRunning();
  m_run->setEnabled(m_runnable && m_controller && !running);
  m_progress->setVisible(running && m_mine);
  m_cancel->setVisible(running && m_mine);
}

}  // namespace attnlab::app
