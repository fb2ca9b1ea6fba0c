#pragma once

// Closing the window while a run trains asks first: stopping writes a checkpoint, and the
// question says so, for one process or several.

#include <functional>

class QWidget;

namespace attnlab::app {

class RunSession;

/// Opens the (non-modal) question for `run`; `stopAndClose` runs when the person agrees.
void askToStopAndClose(QWidget* parent, const RunSession* run,
                       const std::function<void()>& stopAndClose);

}  // namespace attnlab::app
