#pragma once

// One view of the Analysis tab (violins, head summaries, head similarity, guidance
// conformity, over training): draws a loaded report through figures/ and says which catalog
// figure it shows, so that "Export figure..." writes what `attnlab-cli export` would.

#include "widgets/plots/theme.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <string>

namespace attnlab::analysis {
struct AnalysisReport;
}
namespace attnlab::widgets {
class PlotWidget;
}

namespace attnlab::app {

/// What a view draws from: the report, its file and the run's name for titles.
struct ShownReport {
  std::shared_ptr<const analysis::AnalysisReport> report;
  QString path;
  std::string runName;
};

class AnalysisView : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;

  /// Draws `shown` (never null report). Errors of a missing input are shown in the view.
  virtual void setReport(const ShownReport& shown) = 0;
  virtual void setTheme(const widgets::Theme& theme) = 0;
  /// The catalog figure the view shows ("clark-fig2", ...); empty when it shows nothing
  /// exportable.
  virtual QString figureName() const = 0;
  /// The plot on screen; used for the export when it is not the catalog figure as is (a
  /// single guidance pattern), see exportsCatalogFigure().
  virtual widgets::PlotWidget* shownPlot() const = 0;
  /// True when shownPlot() draws exactly the catalog figure (the export then builds it as
  /// `attnlab-cli export` does); false when the view narrowed it.
  virtual bool exportsCatalogFigure() const { return true; }

 signals:
  /// The figure the view shows changed (its export button may need updating).
  void figureChanged();
};

}  // namespace attnlab::app
