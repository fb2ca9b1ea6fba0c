#pragma once

#include <functional>

namespace attnlab::app {

/// Runs one subcommand's body so that no exception escapes to the user as a crash: an
/// attnlab::Error (bad input, with what and where) becomes "attnlab-cli <command>: error:
/// ..." on stderr, anything else "... unexpected error: ...", both with exit status 1.
/// Otherwise returns the body's exit status.
int runReportingErrors(const char* command, const std::function<int()>& body);

}  // namespace attnlab::app
