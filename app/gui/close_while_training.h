#pragma once

// Closing the window while a run trains asks first: stopping writes a checkpoint, and the
// question says so, for one process or several.

#include <functional>

class QWidget;

namespace attnlab::app {

class RunSession;
class TrainingCoordinator;

/// Opens the (non-modal) question for `run`; `stopAndClose` runs when the person agrees.
void askToStopAndClose(QWidget* parent, const RunSession* run,
                       const std::function<void()>& stopAndClose);

/// Whether `window` may close now: yes unless `training` trains a run. Then the question is
/// asked, once: when the person agrees `stopping` is set and the run stopped (the window
/// closes itself when the training ended).
bool mayClose(QWidget* window, TrainingCoordinator& training, bool& stopping);

}  // namespace attnlab::app
