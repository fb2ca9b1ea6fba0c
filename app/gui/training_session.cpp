#include "app/gui/training_session.h"

namespace attnlab::app {

// Out of line: the class's key function, so its vtable and type information live here.
TrainingSession::~TrainingSession() = default;

}  // namespace attnlab::app
