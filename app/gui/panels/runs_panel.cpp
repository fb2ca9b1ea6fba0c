#include "app/gui/panels/runs_panel.h"

#include <QDir>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QVBoxLayout>

namespace attnlab::app {

namespace {
constexpr int kRunRole = Qt::UserRole + 1;

QIcon swatch(const QColor& colour) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  p.setBrush(colour);
  p.setPen(colour.darker(130));
  p.drawRoundedRect(QRectF(1, 1, 12, 12), 3, 3);
  return QIcon(pixmap);
}

RunSession* runOf(const QListWidgetItem* item) {
  return item ? static_cast<RunSession*>(item->data(kRunRole).value<void*>()) : nullptr;
}
}  // namespace

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("runsList"));
  m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_list->setToolTip(
      QStringLiteral("Open runs. Select several (Ctrl+click) to overlay their "
                     "curves."));
  layout->addWidget(m_list, 1);
  auto* buttons = new QHBoxLayout;
  m_resume = new QPushButton(QStringLiteral("Resume"), this);
  m_resume->setObjectName(QStringLiteral("resumeRunButton"));
  m_resume->setToolTip(QStringLiteral("Continue a stopped run from its latest checkpoint"));
  m_stop = new QPushButton(QStringLiteral("Stop"), this);
  m_stop->setObjectName(QStringLiteral("stopRunButton"));
  m_close = new QPushButton(QStringLiteral("Close"), this);
  m_close->setObjectName(QStringLiteral("closeRunButton"));
  buttons->addWidget(m_resume);
  buttons->addWidget(m_stop);
  buttons->addWidget(m_close);
  layout->addLayout(buttons);

  connect(m_list, &QListWidget::itemSelectionChanged, this, [this] {
    updateButtons();
    emit selectionChanged(selectedRuns());
  });
  connect(m_resume, &QPushButton::clicked, this, [this] {
    if (RunSession* r = currentRun()) emit resumeRequested(r);
  });
  connect(m_stop, &QPushButton::clicked, this, [this] {
    if (RunSession* r = currentRun()) emit stopRequested(r);
  });
  connect(m_close, &QPushButton::clicked, this, [this] {
    if (RunSession* r = currentRun()) emit closeRequested(r);
  });
  updateButtons();
}

QListWidgetItem* RunsPanel::itemOf(RunSession* run) const {
  for (int i = 0; i < m_list->count(); ++i)
    if (runOf(m_list->item(i)) == run) return m_list->item(i);
  return nullptr;
}

void RunsPanel::addRun(RunSession* run) {
  if (itemOf(run) != nullptr) return;
  auto* item = new QListWidgetItem(m_list);
  item->setData(kRunRole, QVariant::fromValue(static_cast<void*>(run)));
  auto update = [this, run] {
    refresh(run);
    updateButtons();
  };
  connect(run, &RunSession::statusChanged, this, update);
  connect(run, &RunSession::stepChanged, this, update);
  // The name arrives with the metadata and may now collide with another run's.
  connect(run, &RunSession::metadataChanged, this, [this] {
    refreshAll();
    updateButtons();
  });
  connect(run, &RunSession::colourChanged, this, update);
  refreshAll();
}

void RunsPanel::removeRun(RunSession* run) {
  disconnect(run, nullptr, this, nullptr);
  delete itemOf(run);
  refreshAll();
  updateButtons();
  emit selectionChanged(selectedRuns());
}

void RunsPanel::selectOnly(RunSession* run) {
  QListWidgetItem* item = itemOf(run);
  if (item == nullptr) return;
  m_list->clearSelection();
  item->setSelected(true);
  m_list->setCurrentItem(item);
}

QList<RunSession*> RunsPanel::selectedRuns() const {
  QList<RunSession*> out;
  // In list order, so the first selected is stable.
  for (int i = 0; i < m_list->count(); ++i)
    if (m_list->item(i)->isSelected()) out << runOf(m_list->item(i));
  return out;
}

RunSession* RunsPanel::currentRun() const {
  const auto runs = selectedRuns();
  return runs.isEmpty() ? nullptr : runs.front();
}

QString RunsPanel::rowText(RunSession* run) const {
  const QString status = runStatusText(run->status(), run->processes());
  // Before the first step the count says nothing; the status bar shows the data's progress.
  if (run->status() == RunStatus::PreparingData) {
    return QStringLiteral("%1\n%2").arg(displayName(run), status);
  }
  QString steps = run->totalSteps() > 0
                      ? QStringLiteral("%1 / %2").arg(run->step()).arg(run->totalSteps())
                      : QStringLiteral("step %1").arg(run->step());
  return QStringLiteral("%1\n%2 · %3").arg(displayName(run), status, steps);
}

QString RunsPanel::displayName(RunSession* run) const {
  // Two runs of one name (the demo's "tiny" and a new one) are told apart by their folder.
  for (int i = 0; i < m_list->count(); ++i) {
    const RunSession* other = runOf(m_list->item(i));
    if (other != run && other->name() == run->name())
      return QStringLiteral("%1 (%2)").arg(run->name(), QDir(run->directory()).dirName());
  }
  return run->name();
}

void RunsPanel::refreshAll() {
  for (int i = 0; i < m_list->count(); ++i) refresh(runOf(m_list->item(i)));
}

void RunsPanel::refresh(RunSession* run) {
  QListWidgetItem* item = itemOf(run);
  if (item == nullptr) return;
  item->setText(rowText(run));
  item->setIcon(swatch(run->colour()));
  item->setToolTip(run->directory());
}

void RunsPanel::updateButtons() {
  RunSession* run = currentRun();
  const RunStatus s = run ? run->status() : RunStatus::Opening;
  m_resume->setEnabled(run != nullptr && (s == RunStatus::Stopped || s == RunStatus::Incomplete ||
                                          s == RunStatus::Failed));
  m_stop->setEnabled(run != nullptr && (s == RunStatus::Training || s == RunStatus::Paused ||
                                        s == RunStatus::PreparingData));
  m_close->setEnabled(run != nullptr && !isActiveHere(s));
}

}  // namespace attnlab::app
