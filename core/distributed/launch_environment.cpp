#include "core/distributed/launch_environment.h"

#include "core/errors/error.h"

#include <cstdlib>
#include <string>

namespace attnlab::core {
namespace {

std::optional<std::string> fromProcessEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value) return std::nullopt;
  return std::string(value);
}

int parseInteger(const std::string& name, const std::string& text, int low, int high) {
  std::size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < low || value > high) {
    throw ConfigError("environment " + name, "'" + text + "' is not an integer in " +
                                                 std::to_string(low) + ".." + std::to_string(high));
  }
  return static_cast<int>(value);
}

}  // namespace

std::string LaunchEnvironment::storePrefix() const {
  return agentStore ? "/worker/attempt_" + std::to_string(restartCount) + "/" : "attnlab/";
}

std::optional<LaunchEnvironment> readLaunchEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& lookup) {
  const auto get = lookup ? lookup : fromProcessEnvironment;
  const auto world = get("WORLD_SIZE");
  if (!world) return std::nullopt;
  LaunchEnvironment env;
  constexpr int kMaxRanks = 1 << 20;
  env.worldSize = parseInteger("WORLD_SIZE", *world, 1, kMaxRanks);
  const auto integer = [&](const std::string& name, int fallback, int low, int high) {
    const auto text = get(name);
    return text ? parseInteger(name, *text, low, high) : fallback;
  };
  if (env.worldSize > 1 && !get("RANK"))
    throw ConfigError("environment RANK", "not set, but WORLD_SIZE is " +
                                              std::to_string(env.worldSize) +
                                              ": every worker needs its RANK");
  env.rank = integer("RANK", 0, 0, env.worldSize - 1);
  env.localWorldSize = integer("LOCAL_WORLD_SIZE", env.worldSize, 1, env.worldSize);
  env.localRank = integer("LOCAL_RANK", env.rank % env.localWorldSize, 0, env.localWorldSize - 1);
  if (env.worldSize % env.localWorldSize != 0)
    throw ConfigError("environment LOCAL_WORLD_SIZE",
                      std::to_string(env.localWorldSize) + " does not divide WORLD_SIZE " +
                          std::to_string(env.worldSize) +
                          " (every machine must run the same number of workers)");
  if (const auto addr = get("MASTER_ADDR")) {
    if (addr->empty()) throw ConfigError("environment MASTER_ADDR", "empty");
    env.masterAddr = *addr;
  } else if (env.multiMachine()) {
    throw ConfigError("environment MASTER_ADDR",
                      "not set: a run over several machines needs the address of rank 0's");
  }
  env.masterPort = integer("MASTER_PORT", env.masterPort, 1, 65535);
  const auto agent = get("TORCHELASTIC_USE_AGENT_STORE");
  env.agentStore = agent && (*agent == "True" || *agent == "true" || *agent == "1");
  env.restartCount = integer("TORCHELASTIC_RESTART_COUNT", 0, 0, kMaxRanks);
  return env;
}

}  // namespace attnlab::core
