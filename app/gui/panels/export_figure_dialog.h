#pragma once

// The one dialog a figure is exported with (File > Export figure, the context menu of every
// plot, the figure views): where to (the suffix picks PNG, SVG or PDF), the size in logical
// pixels and the PNG's pixel density. It only asks; the caller writes the file.

#include "widgets/plots/plot_export.h"

#include <QDialog>
#include <QString>

class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attnlab::app {

class ExportFigureDialog : public QDialog {
  Q_OBJECT
 public:
  /// `suggested`: the path proposed; `defaults`: the figure's own size and DPI.
  ExportFigureDialog(const QString& suggested, const widgets::ExportOptions& defaults,
                     QWidget* parent = nullptr);

  QString path() const;
  /// The size and DPI chosen (title left as the defaults had it).
  widgets::ExportOptions options() const;
  widgets::ExportFormat format() const;

  QLineEdit* pathEdit() const { return m_path; }
  QSpinBox* widthBox() const { return m_width; }
  QSpinBox* heightBox() const { return m_height; }
  QDoubleSpinBox* dpiBox() const { return m_dpi; }

 private:
  void browse();
  void validate();

  widgets::ExportOptions m_defaults;
  QLineEdit* m_path = nullptr;
  QSpinBox* m_width = nullptr;
  QSpinBox* m_height = nullptr;
  QDoubleSpinBox* m_dpi = nullptr;
  QLabel* m_problem = nullptr;
  QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace attnlab::app
