#pragma once

#include "core/errors/error.h"

namespace attnlab::figures {

/// A figure cannot be made as asked: an unknown figure name, the wrong number of runs, an
/// export that failed. `where()` names the figure or the file.
class FigureError : public Error {
  using Error::Error;
};

/// A figure's input is not there: a run without a run log, a series the run never logged
/// (its mechanism was off), no analysis report at the asked step. `where()` names the run or
/// the file; `reason()` says what is missing and, where there is one, the command that makes
/// it. The report bundle lists these as "does not apply" rather than failing.
class FigureInputError : public FigureError {
  using FigureError::FigureError;
};

}  // namespace attnlab::figures
