#include "app/gui/panels/run_status_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>

#include <cmath>

namespace attnlab::app {

RunStatusBar::RunStatusBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("runStatusBar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_label = new QLabel(this);
  m_bar = new QProgressBar(this);
  m_bar->setObjectName(QStringLiteral("engineProgress"));
  m_bar->setMaximumWidth(240);
  // Room for "1,234 / 10,240 MB" while a large corpus is prepared.
  m_bar->setMinimumWidth(170);
  m_bar->setTextVisible(true);
  m_rate = new QLabel(this);
  m_rate->setObjectName(QStringLiteral("engineRate"));
  layout->addWidget(m_label);
  layout->addWidget(m_bar);
  layout->addWidget(m_rate);
  showIdle();
}

QString RunStatusBar::formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return QStringLiteral("?");
  const auto s = static_cast<long long>(std::llround(seconds));
  const long long h = s / 3600, m = (s / 60) % 60, sec = s % 60;
  return h > 0 ? QStringLiteral("%1:%2:%3")
                     .arg(h)
                     .arg(m, 2, 10, QChar('0'))
                     .arg(sec, 2, 10, QChar('0'))
               : QStringLiteral("%1:%2").arg(m).arg(sec, 2, 10, QChar('0'));
}

void RunStatusBar::showProgress(const QString& runName, const EngineProgress& p, RunStatus status) {
  setVisible(true);
  const bool training = p.phase == QStringLiteral("training");
  m_label->setText(QStringLiteral("%1: %2").arg(
      runName, training ? runStatusText(status, p.processes) : p.phase));
  if (p.total > 0) {
    m_bar->setRange(0, 1000);
    m_bar->setValue(
        static_cast<int>(1000.0 * static_cast<double>(p.done) / static_cast<double>(p.total)));
    m_bar->setFormat(p.doneInBytes ? QStringLiteral("%1 / %2 MB")
                                         .arg(QLocale().toString(double(p.done) / kMb, 'f', 0),
                                              QLocale().toString(double(p.total) / kMb, 'f', 0))
                                   : QStringLiteral("%1 / %2").arg(p.done).arg(p.total));
  } else {
    m_bar->setRange(0, 0);  // busy indicator: the phase has no known length
  }
  QString rate = p.doneInBytes ? dataRate(p) : QString();
  if (training && p.tokensPerSecond > 0) {
    rate = QStringLiteral("%1 tokens/s").arg(QLocale().toString(p.tokensPerSecond, 'f', 0));
    const std::int64_t doneHere = p.done - std::max<std::int64_t>(p.startStep, 0);
    if (doneHere > 0 && p.elapsedSeconds > 0 && p.total > p.done) {
      const double perStep = p.elapsedSeconds / static_cast<double>(doneHere);
      rate += QStringLiteral(" · ETA %1")
                  .arg(formatDuration(perStep * static_cast<double>(p.total - p.done)));
    }
  }
  if (training && !p.device.isEmpty()) {
    // Where it trains, and on a GPU the memory the run holds.
    rate += QStringLiteral(" · %1").arg(p.device);
    if (p.deviceMemoryBytes > 0)
      rate += QStringLiteral(" %1").arg(QLocale().formattedDataSize(p.deviceMemoryBytes));
  }
  m_rate->setText(rate);
}

QString RunStatusBar::dataRate(const EngineProgress& p) {
  if (p.phaseSeconds <= 0 || p.done <= 0) return {};
  const double perSecond = double(p.done) / p.phaseSeconds;
  QString rate = QStringLiteral("%1 MB/s").arg(QLocale().toString(perSecond / kMb, 'f', 1));
  if (p.total > p.done) {
    rate += QStringLiteral(" · ETA %1").arg(formatDuration(double(p.total - p.done) / perSecond));
  }
  return rate;
}

void RunStatusBar::showIdle() {
  m_label->setText(QString());
  m_rate->setText(QString());
  m_bar->setRange(0, 1);
  m_bar->setValue(0);
  setVisible(false);
}

QString RunStatusBar::text() const {
  return m_label->text() + QLatin1Char(' ') + m_bar->text() + QLatin1Char(' ') + m_rate->text();
}

}  // namespace attnlab::app
