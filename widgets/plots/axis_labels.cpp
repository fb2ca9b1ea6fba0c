#include "widgets/plots/axis_labels.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace attnlab::widgets {

int labelStep(int count, double pixels, double pixelsPerLabel) {
  if (count <= 0 || pixels <= 0 || pixelsPerLabel <= 0) return 1;
  const double fits = std::max(1.0, std::floor(pixels / pixelsPerLabel));
  return std::max(1, static_cast<int>(std::ceil(count / fits)));
}

QString elideLabel(const QString& text, int maxChars) {
  if (text.size() <= maxChars) return text;
  return text.left(std::max(1, maxChars - 1)) + QChar(0x2026);
}

void setIndexLabels(QCPAxis* axis, const QStringList& labels, int step) {
  auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
  if (!ticker) {
    ticker = QSharedPointer<QCPAxisTickerText>::create();
    axis->setTicker(ticker);
  }
  QMap<double, QString> ticks;
  step = std::max(1, step);
  for (int i = 0; i < labels.size(); i += step) ticks.insert(i, elideLabel(labels.at(i)));
  ticker->setTicks(ticks);
  ticker->setSubTickCount(0);
}

QStringList indexLabels(int n, const QString& prefix) {
  QStringList out;
  out.reserve(n);
  for (int i = 0; i < n; ++i) out << prefix + QString::number(i);
  return out;
}

}  // namespace attnlab::widgets
