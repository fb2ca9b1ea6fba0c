// Command-line overrides (`--set key=value`, applyOverride()): each line of the input is one
// override, applied in order to the defaults by parseRunConfig() as `attnlab-cli train
// --set ...` does, then validated. Documented errors: ConfigError, where() = "--set <key>"
// or the key path of a cross-key rule. An accepted config must round-trip.

#include "core/config/config_loader.h"
#include "tests/fuzz/config_round_trip.h"
#include "tests/fuzz/fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  std::vector<std::string> overrides;
  std::string_view rest = fuzz::asText(data, size);
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    overrides.emplace_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  core::RunConfig config;
  try {
    config = core::parseRunConfig("", "defaults", overrides);
  } catch (const ConfigError& e) {
    fuzz::checkClearError(e);
    return 0;
  } catch (const std::exception& e) {
    fuzz::reportUndocumented(e);
  }
  fuzz::checkConfigRoundTrip(config);
  return 0;
}
