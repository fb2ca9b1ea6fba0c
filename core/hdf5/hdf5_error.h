#pragma once

#include <string>

namespace attnlab::core::hdf5 {

/// Which error class a failure becomes: every wrapper remembers the domain of the file it
/// came from, so the run log throws RunLogError and checkpoints throw CheckpointError
/// without translating at every call site.
enum class ErrorDomain { RunLog, Checkpoint };

/// What an error names besides HDF5's message: the file and the domain.
struct Context {
  std::string filePath;
  ErrorDomain domain = ErrorDomain::RunLog;
};

/// Throws RunLogError or CheckpointError (by `ctx.domain`) with where = "<file>:<object>"
/// and reason = "<action>: <HDF5's innermost message>" when the calling thread's HDF5 error
/// stack holds one, otherwise just `action`. Clears the stack.
[[noreturn]] void throwError(const Context& ctx, const std::string& objectPath,
                             const std::string& action);

/// Throws the domain's error without consulting HDF5 (for checks of our own).
[[noreturn]] void throwPlainError(const Context& ctx, const std::string& objectPath,
                                  const std::string& reason);

/// The innermost (most specific) message on the calling thread's HDF5 error stack, walking
/// it from the function that detected the failure outwards; empty when the stack is empty.
std::string innermostHdf5Message();

/// Turns off HDF5's automatic error printing for the calling thread. HDF5's error stacks
/// are per thread in a thread-safe build, so every wrapper call does this (once per thread).
void silenceHdf5ErrorPrinting() noexcept;

}  // namespace attnlab::core::hdf5
