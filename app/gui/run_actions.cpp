#include "app/gui/run_actions.h"

#include "app/gui/run_session.h"
#include "app/gui/training_coordinator.h"

#include <QAction>

namespace attnlab::app {

void RunActions::update(const TrainingCoordinator& training, const RunSession* selected) const {
  const bool busy = training.isTraining();
  TrainingSession* session = training.session();
  const TrainingCapabilities can = busy ? session->capabilities() : TrainingCapabilities{};
  const RunStatus status = busy ? session->status() : RunStatus::Incomplete;
  const bool paused = busy && session->isPaused();
  const bool resumable =
      selected != nullptr && selected != training.run() &&
      (selected->status() == RunStatus::Stopped || selected->status() == RunStatus::Incomplete ||
       selected->status() == RunStatus::Failed);
  pause->setEnabled(can.pause && !paused && status != RunStatus::Stopping);
  resume->setEnabled((busy && paused) || (!busy && resumable));
  stop->setEnabled(busy && status != RunStatus::Stopping);
  checkpoint->setEnabled(can.checkpointNow && status == RunStatus::Training);
  // Worker processes take no requests but a stop (a signal): say why these are off.
  const int processes = training.run() ? training.run()->processes() : 1;
  const QString elsewhere =
      busy && !can.pause ? QStringLiteral(
                               " (not for a run in %1 processes: Stop writes a checkpoint and "
                               "Resume continues it)")
                               .arg(processes)
                         : QString();
  pause->setToolTip(QStringLiteral("The engine finishes its step and holds") + elsewhere);
  checkpoint->setToolTip(QStringLiteral("Write a checkpoint after this step") + elsewhere);
}

}  // namespace attnlab::app
