#pragma once

// The Query-key map window (AttentionViz's joint view of a head's queries and keys), opened
// from the Inspect tab's head grid: one head, or every head of a layer as small multiples.
// The map is made by QueryKeyMapController (the CLI's qk-map job, its model borrowed from the
// window's ModelCache) while the window's JobBar shows its progress and Cancel; closing the
// window cancels it. Then the points can be coloured by query or key, by the
// token's position (bins along viridis), or by a text the token's piece contains; hovering a
// point names its token, its position and its sentence. Export figure... writes the map as
// PNG, SVG or PDF.

#include "app/gui/query_key_map_controller.h"
#include "widgets/plots/theme.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace attnlab::widgets {
class ScatterPlot;
}

namespace attnlab::app {

class JobBar;
class ModelCache;

class QueryKeyMapWindow : public QWidget {
  Q_OBJECT
 public:
  /// What the points' colours show.
  enum class ColourBy { QueryKey, Position, TextMatch };

  /// A window of its own (a child of `parent` that stays above it, not inside it).
  explicit QueryKeyMapWindow(QWidget* parent = nullptr);
  ~QueryKeyMapWindow() override;  ///< cancels and joins a map being made

  /// Makes `request`'s map (any map shown before is dropped).
  void start(const QueryKeyMapRequest& request);
  /// Where the maps borrow their models (the Inspect tab's); none: each loads its own.
  void setModels(std::shared_ptr<ModelCache> models);
  JobBar* jobBar() const { return m_jobBar; }
  /// What Cancel does: the map stops at its next check and the window says so.
  void cancel();
  bool isComputing() const;

  void setColourBy(ColourBy by);
  ColourBy colourBy() const { return m_colourBy; }
  /// The text of "text match" (case-insensitive, inside the token's piece).
  void setMatchText(const QString& text);
  void setTheme(const widgets::Theme& theme);
  /// Closing deletes the window: at once, or when a map being made has stopped (the close
  /// never waits for it).
  void setDeleteWhenClosed(bool on) { m_deleteWhenClosed = on; }

  /// The map shown; null while it is made, after a cancel or a failure.
  const QueryKeyMapResult* result() const { return m_result.get(); }
  widgets::ScatterPlot* plot() const { return m_plot; }
  /// Which point point `index` of series `series` is (every panel has the same series):
  /// 0..n-1 the tokens' queries, n..2n-1 their keys, in the sample's token order.
  int pointOf(int series, int index) const;
  /// The hover text of a point: "query `piece` (position p) in: sentence".
  QString pointText(int point) const;
  QString statusText() const;
  /// The explained variance and normalisation scale of every head shown.
  QString summaryText() const;
  /// Writes the map to `path` (.png, .svg or .pdf); returns the error, empty on success.
  QString exportFigure(const QString& path);

 signals:
  /// The map was drawn (after a start, or recoloured).
  void mapShown();
  /// Making the map ended: `ok` with the map shown, else cancelled or failed (`message`).
  void ended(bool ok, bool cancelled, const QString& message);
  void exported(const QString& path);
  void exportFailed(const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  /// One series of every panel: its legend entry, colour and points (see pointOf).
  struct Series {
    QString name;
    QColor colour;  ///< invalid: the theme's categorical colour
    double opacity = 0.75;
    std::vector<int> points;
    bool counted = true;  ///< the legend says how many points
  };

  QWidget* buildControls();
  void onFinished(bool ok, bool cancelled, const QString& message,
                  std::shared_ptr<const QueryKeyMapResult> result);
  void redraw();
  std::vector<Series> planSeries() const;
  std::vector<Series> positionSeries() const;
  std::vector<Series> matchSeries() const;
  QString headCaption(int head) const;
  QString plotTitle() const;
  void updateSummary();
  void askExport();

  QueryKeyMapController m_controller;
  QueryKeyMapRequest m_request;
  std::shared_ptr<const QueryKeyMapResult> m_result;
  QStringList m_pieces;     ///< the sample's pieces
  QStringList m_sentences;  ///< the sample's sentences
  std::vector<Series> m_series;
  ColourBy m_colourBy = ColourBy::QueryKey;
  widgets::Theme m_theme = widgets::Theme::light();
  bool m_deleteWhenClosed = false;
  bool m_deleteWhenStopped = false;

  QLabel* m_heading = nullptr;
  JobBar* m_jobBar = nullptr;
  QComboBox* m_colourCombo = nullptr;
  QLineEdit* m_matchEdit = nullptr;
  QPushButton* m_export = nullptr;
  widgets::ScatterPlot* m_plot = nullptr;
  QLabel* m_summary = nullptr;
  QLabel* m_status = nullptr;
};

}  // namespace attnlab::app
