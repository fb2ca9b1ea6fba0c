#pragma once

// Head summaries (Clark et al. 2019, "What does BERT look at?"): the table of every head's
// mean attention to the first token, separators, periods, the previous, next and same
// token, sortable by any column (numerically), beside Clark's Fig. 2 scatter (clark-fig2).

#include "app/gui/panels/analysis_view.h"

class QLabel;
class QTableWidget;

namespace attnlab::widgets {
class ScatterPlot;
}

namespace attnlab::app {

class AnalysisSummaryView : public AnalysisView {
  Q_OBJECT
 public:
  explicit AnalysisSummaryView(QWidget* parent = nullptr);

  void setReport(const ShownReport& shown) override;
  void setTheme(const widgets::Theme& theme) override;
  QString figureName() const override { return QStringLiteral("clark-fig2"); }
  widgets::PlotWidget* shownPlot() const override;

  QTableWidget* table() const { return m_table; }
  widgets::ScatterPlot* scatter() const { return m_scatter; }

 private:
  void fillTable(const analysis::AnalysisReport& report);

  QTableWidget* m_table = nullptr;
  widgets::ScatterPlot* m_scatter = nullptr;
};

}  // namespace attnlab::app
