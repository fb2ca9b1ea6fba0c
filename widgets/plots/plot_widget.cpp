#include "widgets/plots/plot_widget.h"

#include <QResizeEvent>

#include <qcustomplot.h>
#include <QVBoxLayout>

namespace attnlab::widgets {

PlotWidget::PlotWidget(QWidget* parent) : QWidget(parent) {
  m_layout = new QVBoxLayout(this);
  m_layout->setContentsMargins(0, 0, 0, 0);
  m_layout->setSpacing(2);
  m_plot = new QCustomPlot(this);
  m_plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  m_layout->addWidget(m_plot, 1);
  // The title is part of the plot (not a QLabel) so that it lands in exported files. It gets
  // a row of its own above a content grid, so it stays centred over everything below it.
  QCPLayoutGrid* top = m_plot->plotLayout();
  QCPAxisRect* rect = m_plot->axisRect();
  top->take(rect);
  top->simplify();
  m_titleElement = new QCPTextElement(m_plot, QString(), QFont(font().family(), 11, QFont::Bold));
  m_content = new QCPLayoutGrid;
  top->addElement(0, 0, m_titleElement);
  top->addElement(1, 0, m_content);
  top->setRowSpacing(0);
  m_content->addElement(0, 0, rect);
  m_titleElement->setVisible(false);
  connect(m_plot, &QCustomPlot::afterLayout, this, [this] {
    if (m_inLayoutHook) return;
    m_inLayoutHook = true;
    afterLayout();
    m_inLayoutHook = false;
  });
  m_plot->installEventFilter(this);
  resize(800, 600);
}

PlotWidget::~PlotWidget() = default;

bool PlotWidget::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Resize &&
      static_cast<QResizeEvent*>(event)->size().isEmpty())
    return true;
  return QWidget::eventFilter(watched, event);
}

void PlotWidget::setTitle(const QString& title) {
  m_titleElement->setText(title);
  m_titleElement->setVisible(!title.isEmpty());
}

QString PlotWidget::title() const {
  return m_titleElement->text();
}

void PlotWidget::setTheme(const Theme& theme) {
  m_theme = theme;
  applyTheme(*m_plot, m_theme);
  applyThemeToContent();
  requestReplot();
}

ExportResult PlotWidget::exportTo(const QString& path, ExportFormat format, ExportOptions options) {
  if (options.title.isEmpty()) options.title = title();
  ensureLaidOut();
  return exportPlot(*m_plot, path, format, options);
}

void PlotWidget::ensureLaidOut() {
  // A hidden widget gets its resize and layout only when shown; offscreen rendering and
  // export of a never-shown plot (tests, the gallery, the command line) need them now.
  if (isVisible()) return;
  m_layout->setGeometry(rect());
  // QCustomPlot takes its viewport from resize events, which a hidden widget does not get.
  m_plot->setViewport(m_plot->rect());
}

QImage PlotWidget::renderImage(QSize size, double scale) {
  ensureLaidOut();
  return m_plot->toPixmap(size.width(), size.height(), scale).toImage();
}

void PlotWidget::replotNow() {
  ensureLaidOut();
  m_plot->replot(QCustomPlot::rpImmediateRefresh);
}

void PlotWidget::requestReplot() {
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::relayout() {
  m_plot->plotLayout()->update(QCPLayoutElement::upPreparation);
  m_plot->plotLayout()->update(QCPLayoutElement::upMargins);
  m_plot->plotLayout()->update(QCPLayoutElement::upLayout);
}

}  // namespace attnlab::widgets
