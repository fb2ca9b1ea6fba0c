#pragma once

// The rendering half of `attnlab-cli export`, built only with ATTNLAB_GUI=ON: it starts a
// QApplication (offscreen when there is no display) and draws through figures/.

#include "app/cli/export_command.h"

namespace attnlab::app {

/// --list, --report DIR, or one figure to --out; returns the exit status.
int runFigureExport(const ExportCommandOptions& options);

}  // namespace attnlab::app
