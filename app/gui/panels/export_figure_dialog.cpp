#include "app/gui/panels/export_figure_dialog.h"

#include "app/gui/panels/figure_files.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab::app {

ExportFigureDialog::ExportFigureDialog(const QString& suggested,
                                       const widgets::ExportOptions& defaults, QWidget* parent)
    : QDialog(parent), m_defaults(defaults) {
  setWindowTitle(QStringLiteral("Export figure"));
  auto* form = new QFormLayout;

  auto* pathRow = new QHBoxLayout;
  m_path = new QLineEdit(suggested, this);
  m_path->setObjectName(QStringLiteral("exportPath"));
  m_path->setToolTip(QStringLiteral("The file's suffix picks the format: .png, .svg or .pdf"));
  auto* browseButton = new QPushButton(QStringLiteral("Browse..."), this);
  pathRow->addWidget(m_path, 1);
  pathRow->addWidget(browseButton);
  form->addRow(QStringLiteral("File"), pathRow);

  // Sizes are logical pixels (PDF points); PNG multiplies them by dpi / 96.
  m_width = new QSpinBox(this);
  m_width->setObjectName(QStringLiteral("exportWidth"));
  m_width->setRange(100, 10000);
  m_width->setSuffix(QStringLiteral(" px"));
  m_width->setValue(defaults.widthPx);
  m_height = new QSpinBox(this);
  m_height->setObjectName(QStringLiteral("exportHeight"));
  m_height->setRange(100, 10000);
  m_height->setSuffix(QStringLiteral(" px"));
  m_height->setValue(defaults.heightPx);
  auto* sizeRow = new QHBoxLayout;
  sizeRow->addWidget(m_width);
  sizeRow->addWidget(new QLabel(QStringLiteral("x"), this));
  sizeRow->addWidget(m_height);
  sizeRow->addStretch(1);
  form->addRow(QStringLiteral("Size"), sizeRow);

  m_dpi = new QDoubleSpinBox(this);
  m_dpi->setObjectName(QStringLiteral("exportDpi"));
  m_dpi->setRange(30, 1200);
  m_dpi->setDecimals(0);
  m_dpi->setValue(defaults.dpi);
  m_dpi->setToolTip(QStringLiteral("PNG only: 96 is screen size, 300 print quality"));
  form->addRow(QStringLiteral("PNG density (dpi)"), m_dpi);

  m_problem = new QLabel(this);
  m_problem->setObjectName(QStringLiteral("exportProblem"));
  m_problem->setTextFormat(Qt::PlainText);
  m_problem->setStyleSheet(QStringLiteral("color: #b00020"));

  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Export"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_problem);
  layout->addWidget(m_buttons);

  connect(browseButton, &QPushButton::clicked, this, &ExportFigureDialog::browse);
  connect(m_path, &QLineEdit::textChanged, this, &ExportFigureDialog::validate);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  validate();
}

QString ExportFigureDialog::path() const {
  return m_path->text().trimmed();
}

widgets::ExportOptions ExportFigureDialog::options() const {
  widgets::ExportOptions o = m_defaults;
  o.widthPx = m_width->value();
  o.heightPx = m_height->value();
  o.dpi = m_dpi->value();
  return o;
}

widgets::ExportFormat ExportFigureDialog::format() const {
  return figureFormatOf(path(), nullptr).value_or(widgets::ExportFormat::Png);
}

void ExportFigureDialog::browse() {
  const QString chosen = askFigurePath(this, path());
  if (!chosen.isEmpty()) m_path->setText(chosen);
}

// The format comes from the suffix: a path without one of the three cannot be accepted,
// and the dialog says so instead of failing after it closed.
void ExportFigureDialog::validate() {
  QString error;
  const bool ok = !path().isEmpty() && figureFormatOf(path(), &error).has_value();
  m_problem->setText(path().isEmpty() ? QStringLiteral("Choose a file.") : error);
  m_problem->setVisible(!ok);
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ok);
  m_dpi->setEnabled(!ok || format() == widgets::ExportFormat::Png);
}

}  // namespace attnlab::app
