#include "app/gui/main_window.h"

#include "core/runtime/compute_environment.h"

#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QVBoxLayout>

namespace attnlab::app {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("AttnLab"));
  resize(1100, 720);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  auto* heading = new QLabel(QStringLiteral("<h2>AttnLab</h2><p>Pretraining and attention "
                                            "analysis workbench</p>"),
                             central);
  m_environment = new QLabel(central);
  m_environment->setObjectName(QStringLiteral("environmentLabel"));
  m_environment->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_environment->setText(QString::fromStdString(core::describeTorchBuild()));
  layout->addWidget(heading);
  layout->addWidget(m_environment);
  layout->addStretch(1);
  setCentralWidget(central);

  auto* fileMenu = menuBar()->addMenu(QStringLiteral("&File"));
  fileMenu->addAction(QStringLiteral("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  statusBar()->showMessage(QStringLiteral("Ready"));
}

QString MainWindow::environmentSummary() const {
  return m_environment->text();
}

}  // namespace attnlab::app
