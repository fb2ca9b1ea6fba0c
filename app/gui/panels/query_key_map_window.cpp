#include "app/gui/panels/query_key_map_window.h"

#include "app/gui/jobs/job_bar.h"
#include "app/gui/panels/figure_files.h"
#include "widgets/plots/scatter_plot.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab::app {

namespace {

/// A position bin's width: the smallest power of two that cuts the positions into at most
/// this many bins (0-7, 8-15, ...: a few colours stay distinguishable).
constexpr int kPositionBins = 6;
/// A sentence longer than this is cut in the hover text.
constexpr int kSentenceChars = 240;

const QString kAxis = QStringLiteral("principal component %1 of the normalised queries and keys");
/// In more than two columns the axes say less and the title says the rest.
const QString kShortAxis = QStringLiteral("principal component %1");
const QString kWhatAxesAre =
    QStringLiteral("principal components of the normalised queries and keys");
constexpr int kColumns = 4;

int binWidth(std::int64_t maxPosition) {
  int width = 1;
  while ((maxPosition + 1 + width - 1) / width > kPositionBins) width *= 2;
  return width;
}

}  // namespace

QueryKeyMapWindow::QueryKeyMapWindow(QWidget* parent) : QWidget(parent, Qt::Window) {
  setObjectName(QStringLiteral("queryKeyMapWindow"));
  setWindowTitle(QStringLiteral("Query-key map"));
  resize(1000, 820);
  auto* layout = new QVBoxLayout(this);
  m_heading = new QLabel(this);
  m_heading->setTextFormat(Qt::PlainText);
  m_heading->setWordWrap(true);
  QFont bold = m_heading->font();
  bold.setBold(true);
  m_heading->setFont(bold);
  layout->addWidget(m_heading);
  m_jobBar = new JobBar(QString(), QStringLiteral("qkMap"), this);
  m_jobBar->setRunner(m_controller.runner());
  m_jobBar->setFollowsEveryJob(true);
  layout->addWidget(m_jobBar);
  layout->addWidget(buildControls());
  m_plot = new widgets::ScatterPlot(this);
  m_plot->setObjectName(QStringLiteral("qkMapPlot"));
  m_plot->setHoverText(
      [this](int, int series, int index) { return pointText(pointOf(series, index)); });
  layout->addWidget(m_plot, 1);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("qkMapSummary"));
  m_summary->setTextFormat(Qt::PlainText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_summary);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("qkMapStatus"));
  m_status->setTextFormat(Qt::PlainText);  // messages may hold "<s>"
  m_status->setWordWrap(true);
  layout->addWidget(m_status);

  connect(&m_controller, &QueryKeyMapController::finished, this, &QueryKeyMapWindow::onFinished);
}

// The controller (a member) cancels and joins in its own destructor.
QueryKeyMapWindow::~QueryKeyMapWindow() = default;

void QueryKeyMapWindow::setModels(std::shared_ptr<ModelCache> models) {
  m_controller.setModels(std::move(models));
}

QWidget* QueryKeyMapWindow::buildControls() {
  auto* controls = new QWidget(this);
  auto* row = new QHBoxLayout(controls);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(new QLabel(QStringLiteral("Colour by"), controls));
  m_colourCombo = new QComboBox(controls);
  m_colourCombo->setObjectName(QStringLiteral("qkMapColourBy"));
  m_colourCombo->addItem(QStringLiteral("query / key"), int(ColourBy::QueryKey));
  m_colourCombo->addItem(QStringLiteral("token position"), int(ColourBy::Position));
  m_colourCombo->addItem(QStringLiteral("text match"), int(ColourBy::TextMatch));
  row->addWidget(m_colourCombo);
  m_matchEdit = new QLineEdit(controls);
  m_matchEdit->setObjectName(QStringLiteral("qkMapMatchText"));
  m_matchEdit->setPlaceholderText(QStringLiteral("text in the token (case-insensitive)"));
  m_matchEdit->setToolTip(QStringLiteral(
      "Highlights the tokens whose piece contains this text; typing colours by text match"));
  m_matchEdit->setClearButtonEnabled(true);
  row->addWidget(m_matchEdit, 1);
  m_export = newExportFigureButton(QStringLiteral("qkMapExport"), controls);
  row->addWidget(m_export);
  connect(m_colourCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
          [this] { setColourBy(static_cast<ColourBy>(m_colourCombo->currentData().toInt())); });
  connect(m_matchEdit, &QLineEdit::textChanged, this, [this] {
    if (m_colourBy == ColourBy::TextMatch) redraw();
  });
  connect(m_matchEdit, &QLineEdit::textEdited, this, [this] { setColourBy(ColourBy::TextMatch); });
  connect(m_export, &QPushButton::clicked, this, &QueryKeyMapWindow::askExport);
  return controls;
}

void QueryKeyMapWindow::start(const QueryKeyMapRequest& request) {
  m_request = request;
  m_result.reset();
  m_series.clear();
  m_plot->setPanels({});
  m_plot->setTitle(QString());
  m_summary->clear();
  m_export->setEnabled(false);
  const QString heads = request.head >= 0 ? QStringLiteral("head %1").arg(request.head)
                                          : QStringLiteral("every head");
  const QString step =
      request.step ? QStringLiteral("step %1").arg(*request.step) : QStringLiteral("latest step");
  const QString run = QFileInfo(request.runDirectory).fileName();
  m_heading->setText(QStringLiteral("Query-key map of layer %1, %2: run %3, %4")
                         .arg(request.layer)
                         .arg(heads, run, step));
  setWindowTitle(
      QStringLiteral("Query-key map: %1, layer %2, %3").arg(run).arg(request.layer).arg(heads));
  QString whyNot;
  if (!m_controller.start(request, &whyNot)) {
    m_status->setText(whyNot);
    return;
  }
  m_status->setText(
      QStringLiteral("Making the map from the first %1 tokens of the validation split ...")
          .arg(request.maxTokens));
}

void QueryKeyMapWindow::cancel() {
  m_controller.cancel();  // the bar says "Cancelling…"
}

bool QueryKeyMapWindow::isComputing() const {
  return m_controller.isRunning();
}

void QueryKeyMapWindow::onFinished(bool ok, bool cancelled, const QString& message,
                                   std::shared_ptr<const QueryKeyMapResult> result) {
  if (ok) {
    m_result = std::move(result);
    m_pieces.clear();
    m_sentences.clear();
    for (const auto& p : m_result->sample.pieces) m_pieces << QString::fromStdString(p);
    for (const auto& s : m_result->sample.sentences) m_sentences << QString::fromStdString(s);
    m_status->setText(QStringLiteral("Hover a point: its token, position and sentence."));
    m_export->setEnabled(true);
    // Small multiples of many heads need the room (a window the person sized stays).
    if (m_result->sample.maps.size() > 2 && width() < 1400) resize(1400, std::max(height(), 950));
    updateSummary();
    redraw();
  } else if (cancelled) {
    m_status->setText(QStringLiteral("Cancelled: the map was not made."));
  } else {
    m_status->setText(QStringLiteral("Cannot make the map: %1").arg(message));
  }
  emit ended(ok, cancelled, message);
  if (m_deleteWhenStopped) deleteLater();
}

void QueryKeyMapWindow::setColourBy(ColourBy by) {
  m_colourBy = by;
  const int index = m_colourCombo->findData(int(by));
  if (m_colourCombo->currentIndex() != index) {
    const QSignalBlocker block(m_colourCombo);
    m_colourCombo->setCurrentIndex(index);
  }
  redraw();
}

void QueryKeyMapWindow::setMatchText(const QString& text) {
  m_matchEdit->setText(text);  // redraws when colouring by text match
}

void QueryKeyMapWindow::setTheme(const widgets::Theme& theme) {
  m_theme = theme;
  m_plot->setTheme(theme);
  redraw();  // the text match's colours are the theme's
}

int QueryKeyMapWindow::pointOf(int series, int index) const {
  if (series < 0 || series >= static_cast<int>(m_series.size())) return -1;
  const auto& points = m_series[static_cast<std::size_t>(series)].points;
  return index >= 0 && index < static_cast<int>(points.size())
             ? points[static_cast<std::size_t>(index)]
             : -1;
}

QString QueryKeyMapWindow::pointText(int point) const {
  const int n = static_cast<int>(m_pieces.size());
  if (!m_result || point < 0 || point >= 2 * n) return {};
  const int token = point % n;
  const auto& s = m_result->sample;
  QString sentence =
      m_sentences.value(static_cast<int>(s.sequence[static_cast<std::size_t>(token)]));
  if (sentence.size() > kSentenceChars)
    sentence = sentence.left(kSentenceChars) + QStringLiteral(" ...");
  // One arg() call: a piece or a sentence holding "%1" is not substituted again.
  return QStringLiteral("%1 `%2` (position %3) in: %4")
      .arg(point < n ? QStringLiteral("query") : QStringLiteral("key"), m_pieces[token],
           QString::number(s.position[static_cast<std::size_t>(token)]), sentence);
}

QString QueryKeyMapWindow::statusText() const {
  return m_status->text();
}

QString QueryKeyMapWindow::summaryText() const {
  return m_summary->text();
}

std::vector<QueryKeyMapWindow::Series> QueryKeyMapWindow::planSeries() const {
  const int n = static_cast<int>(m_pieces.size());
  if (m_colourBy == ColourBy::Position) return positionSeries();
  if (m_colourBy == ColourBy::TextMatch) return matchSeries();
  Series queries{QStringLiteral("queries"), QColor(), 0.75, {}, true};
  Series keys{QStringLiteral("keys"), QColor(), 0.75, {}, true};
  for (int t = 0; t < n; ++t) {
    queries.points.push_back(t);
    keys.points.push_back(n + t);
  }
  return {queries, keys};
}

std::vector<QueryKeyMapWindow::Series> QueryKeyMapWindow::positionSeries() const {
  const auto& positions = m_result->sample.position;
  const std::int64_t maxPosition =
      positions.empty() ? 0 : *std::max_element(positions.begin(), positions.end());
  const int width = binWidth(maxPosition);
  const int bins = static_cast<int>(maxPosition / width) + 1;
  std::vector<Series> series(static_cast<std::size_t>(bins));
  for (int b = 0; b < bins; ++b) {
    Series& s = series[static_cast<std::size_t>(b)];
    s.counted = false;  // six names with counts overflow the legend's row
    s.name = width == 1 ? QStringLiteral("position %1").arg(b)
                        : QStringLiteral("positions %1-%2").arg(b * width).arg((b + 1) * width - 1);
    s.colour = widgets::ScatterPlot::layerColour(b, bins);
  }
  const int n = static_cast<int>(positions.size());
  for (int p = 0; p < 2 * n; ++p)
    series[static_cast<std::size_t>(positions[static_cast<std::size_t>(p % n)] / width)]
        .points.push_back(p);
  return series;
}

std::vector<QueryKeyMapWindow::Series> QueryKeyMapWindow::matchSeries() const {
  const QString text = m_matchEdit->text();
  // The other tokens first and faint, so the matches are drawn over them.
  Series others{text.isEmpty() ? QStringLiteral("every token (type a text to highlight)")
                               : QStringLiteral("other tokens"),
                m_theme.foreground,
                0.18,
                {},
                true};
  Series matches{
      QStringLiteral("tokens containing \"%1\"").arg(text), m_theme.accent, 1.0, {}, true};
  const int n = static_cast<int>(m_pieces.size());
  for (int p = 0; p < 2 * n; ++p) {
    const bool hit = !text.isEmpty() && m_pieces[p % n].contains(text, Qt::CaseInsensitive);
    (hit ? matches : others).points.push_back(p);
  }
  if (text.isEmpty()) return {others};
  return {others, matches};
}

QString QueryKeyMapWindow::headCaption(int head) const {
  for (const auto& m : m_result->sample.maps) {
    if (m.head != head) continue;
    return QStringLiteral("head %1: %2% of the variance, scale %3")
        .arg(head)
        .arg(100.0 * m.map.explained, 0, 'f', 1)
        .arg(m.map.normalisation.scale, 0, 'g', 3);
  }
  return {};
}

QString QueryKeyMapWindow::plotTitle() const {
  const auto& s = m_result->sample;
  const QString heads =
      s.head >= 0 ? QStringLiteral("head %1").arg(s.head) : QStringLiteral("every head");
  return QStringLiteral("Query-key map, layer %1, %2, step %3: %4 tokens of %5")
      .arg(s.layer)
      .arg(heads)
      .arg(m_result->step)
      .arg(s.tokens())
      .arg(QFileInfo(m_result->runDirectory).fileName());
}

void QueryKeyMapWindow::redraw() {
  if (!m_result) return;
  m_series = planSeries();
  const auto& maps = m_result->sample.maps;
  const int columns = std::min(kColumns, std::max(1, static_cast<int>(maps.size())));
  const QString& axis = columns > 2 ? kShortAxis : kAxis;
  QVector<widgets::XyPanel> panels;
  for (const auto& head : maps) {
    const auto& map = head.map;
    widgets::XyPanel panel;
    panel.title = headCaption(head.head);
    panel.xLabel = axis.arg(1);
    panel.yLabel = map.dims > 1 ? axis.arg(2) : QStringLiteral("(a one-dimensional head)");
    panel.equalAspect = map.dims > 1;  // distances are what the map shows
    for (const Series& plan : m_series) {
      widgets::XySeries series;
      series.name = plan.counted ? QStringLiteral("%1 (%2)").arg(plan.name).arg(plan.points.size())
                                 : plan.name;
      series.colour = plan.colour;
      series.opacity = plan.opacity;
      for (const int p : plan.points) {
        const auto at = static_cast<std::size_t>(p) * static_cast<std::size_t>(map.dims);
        series.x << map.coords[at];
        series.y << (map.dims > 1 ? map.coords[at + 1] : 0.0);
      }
      panel.series << series;
    }
    panels << panel;
  }
  m_plot->setTitle(columns > 2 ? plotTitle() + QStringLiteral("; ") + kWhatAxesAre : plotTitle());
  m_plot->setPanels(panels, columns);
  emit mapShown();
}

void QueryKeyMapWindow::updateSummary() {
  const auto& s = m_result->sample;
  QStringList lines;
  lines << QStringLiteral(
               "%1 tokens (each a query and a key: %2 points) of %3 sequences of the %4, "
               "checkpoint step %5; head dimension %6.")
               .arg(QString::number(s.tokens()), QString::number(2 * s.tokens()),
                    QString::number(s.sentences.size()), m_result->evaluation,
                    QString::number(m_result->step), QString::number(s.headDim));
  // One line a head for one or two; beyond, one paragraph (the panels' titles repeat it).
  QStringList heads;
  for (const auto& m : s.maps)
    heads << QStringLiteral(
                 "Head %1: the map's %2 components explain %3% of the variance; "
                 "normalisation scale s = %4%5")
                 .arg(m.head)
                 .arg(m.map.dims)
                 .arg(100.0 * m.map.explained, 0, 'f', 1)
                 .arg(m.map.normalisation.scale, 0, 'g', 4)
                 .arg(m.map.normalisation.normsMatched
                          ? QString()
                          : QStringLiteral(" (mean norms not matched)"));
  lines << (heads.size() > 2 ? heads.join(QStringLiteral(". ")) + QLatin1Char('.')
                             : heads.join(QStringLiteral(".\n")) + QLatin1Char('.'));
  lines << QStringLiteral(
      "Normalised as AttentionViz does: keys translated so the centroids meet, queries x s and "
      "keys / s so the mean norms match; every q.k, hence every attention row, is unchanged. Near "
      "points attend strongly.");
  m_summary->setText(lines.join(QLatin1Char('\n')));
}

QString QueryKeyMapWindow::exportFigure(const QString& path) {
  if (!m_result) return QStringLiteral("this view has nothing to export yet");
  widgets::ExportOptions options;
  options.widthPx = std::max(800, m_plot->width());
  options.heightPx = std::max(600, m_plot->height());
  return exportPlotFile(m_plot, path, options);
}

void QueryKeyMapWindow::askExport() {
  if (!m_result) return;
  const QString stem = m_result->sample.head >= 0
                           ? QStringLiteral("qk-map-layer-%1-head-%2")
                                 .arg(m_result->sample.layer)
                                 .arg(m_result->sample.head)
                           : QStringLiteral("qk-map-layer-%1").arg(m_result->sample.layer);
  const QString path =
      askFigurePath(this, QDir(m_result->runDirectory).filePath(stem + QStringLiteral(".png")));
  if (path.isEmpty()) return;
  const QString error = exportFigure(path);
  m_status->setText(error.isEmpty() ? QStringLiteral("Wrote %1").arg(path) : error);
  if (error.isEmpty())
    emit exported(path);
  else
    emit exportFailed(error);
}

void QueryKeyMapWindow::closeEvent(QCloseEvent* event) {
  // Closing never waits for the model: a map being made is cancelled, and a window that
  // deletes itself goes when its thread has stopped.
  const bool computing = m_controller.isRunning();
  if (computing) cancel();
  if (m_deleteWhenClosed) {
    if (computing)
      m_deleteWhenStopped = true;
    else
      deleteLater();
  }
  QWidget::closeEvent(event);
}

}  // namespace attnlab::app
