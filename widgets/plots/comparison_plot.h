#pragma once

#include <QString>
#include <QStringList>

#include "widgets/plots/colour_maps.h"
#include "widgets/plots/plot_data.h"
#include "widgets/plots/plot_widget.h"

class QCPAxisRect;
class QCPColorMap;
class QCPColorScale;
class QCPTextElement;

namespace attnlab::widgets {

/// Two matrices side by side (the same head in two runs or variants) on one shared colour
/// scale, so equal colours mean equal values across both panels.
class ComparisonPlot : public PlotWidget {
  Q_OBJECT
 public:
  explicit ComparisonPlot(QWidget* parent = nullptr);

  /// The two panels with their captions (e.g. run names) and optional token labels.
  void setMatrices(const Matrix& left, const QString& leftCaption, const Matrix& right,
                   const QString& rightCaption, const QStringList& rowLabels = {},
                   const QStringList& columnLabels = {});
  void setLogScale(bool on);
  void setColourMap(ColourMap map);
  void setValueLabel(const QString& label);
  /// The shared colour range (the union of both matrices' ranges).
  QCPRange sharedRange() const;
  QCPAxisRect* panel(int side) const;

 private:
  void fill(QCPColorMap* map, const Matrix& m);
  void setLabels(QCPAxisRect* rect, const QStringList& rows, const QStringList& cols, int r, int c);

  QCPAxisRect* m_rects[2] = {nullptr, nullptr};
  QCPColorMap* m_maps[2] = {nullptr, nullptr};
  QCPTextElement* m_captions[2] = {nullptr, nullptr};
  QCPColorScale* m_scale = nullptr;
  bool m_log = false;
  double m_lo = 0.0, m_hi = 1.0, m_minPositive = 1.0;
};

}  // namespace attnlab::widgets
