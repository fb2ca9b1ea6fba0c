#pragma once

// What every config harness checks of a configuration the loader accepted: config_loader.h
// promises that parseRunConfig(toToml(c)) reproduces c exactly and that toJson() carries the
// same content, so both round trips must succeed and give the same TOML back.

#include "core/config/config_loader.h"
#include "tests/fuzz/fuzz_support.h"

#include <exception>
#include <string>

namespace attnlab::fuzz {

inline void checkConfigRoundTrip(const core::RunConfig& config) {
  const std::string toml = core::toToml(config);
  std::string again;
  try {
    again = core::toToml(core::parseRunConfig(toml, "toToml()"));
  } catch (const std::exception& e) {
    reportFinding("an accepted config does not read back from its own toToml(): " +
                  std::string(e.what()) + "\n--- toToml() ---\n" + toml);
  }
  if (again != toml) {
    reportFinding("toToml() -> parseRunConfig() changed the config\n--- before ---\n" + toml +
                  "\n--- after ---\n" + again);
  }
  const std::string json = core::toJson(config);
  try {
    again = core::toToml(core::parseRunConfigJson(json, "toJson()"));
  } catch (const std::exception& e) {
    reportFinding("an accepted config does not read back from its own toJson(): " +
                  std::string(e.what()) + "\n--- toJson() ---\n" + json);
  }
  if (again != toml) {
    reportFinding("toJson() -> parseRunConfigJson() changed the config\n--- toToml() ---\n" + toml +
                  "\n--- via JSON ---\n" + again);
  }
}

}  // namespace attnlab::fuzz
