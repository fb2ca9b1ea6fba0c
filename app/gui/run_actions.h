#pragma once

// The Run menu's actions (Pause, Resume, Stop, Checkpoint now), which follow the training
// state and the run selected. A plain header of its own: the window holds them and the
// menus make them, and neither header needs the other.

class QAction;

namespace attnlab::app {

class RunSession;
class TrainingCoordinator;

struct RunActions {
  QAction* pause = nullptr;
  QAction* resume = nullptr;
  QAction* stop = nullptr;
  QAction* checkpoint = nullptr;

  /// Enables them by what the back-end training now offers and by the run selected (a
  /// stopped, incomplete or failed run that is not training can be resumed).
  void update(const TrainingCoordinator& training, const RunSession* selected) const;
};

}  // namespace attnlab::app
