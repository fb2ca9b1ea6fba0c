// A run's config file as JSON: parseRunConfigJson(), the reader behind loadRunConfig() for a
// ".json" file (the shape toJson() writes). Documented errors: ConfigError with where() =
// "file:line:column" or the key path. An accepted config must round-trip.

#include "core/config/config_loader.h"
#include "tests/fuzz/config_round_trip.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  core::RunConfig config;
  try {
    config = core::parseRunConfigJson(fuzz::asText(data, size), "fuzz.json");
  } catch (const ConfigError& e) {
    fuzz::checkClearError(e);
    return 0;
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  fuzz::checkConfigRoundTrip(config);
  return 0;
}
