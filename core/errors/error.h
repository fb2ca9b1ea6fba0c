#pragma once

#include <stdexcept>
#include <string>

namespace attnlab {

/// Base of every error the engine and analysis throw. `where()` names the place the
/// problem is in the user's terms (a file and line, a config key path, a step),
/// `what()` carries the full message "where: reason" for direct display.
class Error : public std::runtime_error {
 public:
  Error(std::string where, const std::string& reason)
      : std::runtime_error(where.empty() ? reason : where + ": " + reason),
        m_where(std::move(where)),
        m_reason(reason) {}

  const std::string& where() const noexcept { return m_where; }
  const std::string& reason() const noexcept { return m_reason; }

 private:
  std::string m_where;
  std::string m_reason;
};

/// A configuration value is missing, of the wrong type, out of range or unknown.
class ConfigError : public Error {
  using Error::Error;
};
/// Corpus or data files are missing, empty or malformed.
class DataError : public Error {
  using Error::Error;
};
/// SentencePiece could not be loaded, trained or used.
class TokenizerError : public Error {
  using Error::Error;
};
/// The HDF5 run log could not be written or read.
class RunLogError : public Error {
  using Error::Error;
};
/// A checkpoint is missing, unreadable or does not fit the model.
class CheckpointError : public Error {
  using Error::Error;
};
/// Training had to stop (non-finite values and similar).
class TrainingError : public Error {
  using Error::Error;
};
/// Data-parallel training could not start or go on: a peer unreachable or dead, a failed
/// collective, ranks that disagree (the message names the rank, address or hashes).
class DistributedError : public Error {
  using Error::Error;
};
/// Work stopped because its caller asked it to (a stop or cancel request). Not a failure:
/// what was complete before is kept, nothing partial is.
class Cancelled : public Error {
  using Error::Error;
};

}  // namespace attnlab
