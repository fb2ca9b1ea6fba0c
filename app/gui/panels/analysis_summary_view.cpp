#include "app/gui/panels/analysis_summary_view.h"

#include "analysis/runs/analysis_report.h"
#include "figures/head_figures.h"
#include "widgets/plots/scatter_plot.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>

#include <algorithm>
#include <cmath>
#include <exception>

namespace attnlab::app {

namespace {

/// A table cell that sorts by its number, not its text.
class NumberItem : public QTableWidgetItem {
 public:
  explicit NumberItem(double value, int decimals)
      : QTableWidgetItem(std::isfinite(value) ? QString::number(value, 'f', decimals)
                                              : QStringLiteral("-")) {
    setData(Qt::UserRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    setFlags(flags() & ~Qt::ItemIsEditable);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

}  // namespace

AnalysisSummaryView::AnalysisSummaryView(QWidget* parent) : AnalysisView(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* split = new QSplitter(Qt::Horizontal, this);
  m_table = new QTableWidget(split);
  m_table->setObjectName(QStringLiteral("headSummaryTable"));
  m_table->setToolTip(QStringLiteral(
      "Mean attention of each head to the first token, separators, periods, the previous, "
      "next and same token (Clark et al. 2019, Fig. 2); click a column to sort"));
  m_table->verticalHeader()->setVisible(false);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSortIndicatorShown(true);
  m_scatter = new widgets::ScatterPlot(split);
  m_scatter->setObjectName(QStringLiteral("clarkScatter"));
  m_scatter->setMinimumSize(360, 240);
  split->addWidget(m_table);
  split->addWidget(m_scatter);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  layout->addWidget(split);
}

widgets::PlotWidget* AnalysisSummaryView::shownPlot() const {
  return m_scatter;
}

void AnalysisSummaryView::setTheme(const widgets::Theme& theme) {
  m_scatter->setTheme(theme);
}

void AnalysisSummaryView::setReport(const ShownReport& shown) {
  fillTable(*shown.report);
  try {
    figures::drawClarkFig2(*m_scatter, *shown.report, shown.runName, shown.path.toStdString());
  } catch (const std::exception& e) {
    m_scatter->setPanels({});
    m_scatter->setTitle(QString::fromStdString(e.what()));
  }
  emit figureChanged();
}

void AnalysisSummaryView::fillTable(const analysis::AnalysisReport& report) {
  const auto& s = report.statistics;
  const QStringList columns = {QStringLiteral("layer"),
                               QStringLiteral("head"),
                               QStringLiteral("first"),
                               QStringLiteral("separator"),
                               QStringLiteral("period"),
                               QStringLiteral("previous"),
                               QStringLiteral("next"),
                               QStringLiteral("self"),
                               QStringLiteral("median entropy (nats)")};
  m_table->setSortingEnabled(false);
  m_table->clear();
  m_table->setColumnCount(static_cast<int>(columns.size()));
  m_table->setHorizontalHeaderLabels(columns);
  const int n = static_cast<int>(s.headSummaries.size());
  m_table->setRowCount(n);
  for (int i = 0; i < n; ++i) {
    const auto& h = s.headSummaries[static_cast<std::size_t>(i)];
    const double median = i < static_cast<int>(s.entropy.size())
                              ? s.entropy[static_cast<std::size_t>(i)].median
                              : std::nan("");
    const double values[] = {double(i / std::max(1, s.heads)),
                             double(i % std::max(1, s.heads)),
                             h.first,
                             h.separator,
                             h.period,
                             h.previous,
                             h.next,
                             h.self,
                             median};
    for (int c = 0; c < static_cast<int>(columns.size()); ++c)
      m_table->setItem(i, c, new NumberItem(values[c], c < 2 ? 0 : 3));
  }
  m_table->setSortingEnabled(true);
}

}  // namespace attnlab::app
