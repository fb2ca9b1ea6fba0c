#pragma once

// Where this process stands in a data-parallel launch, read from the environment that
// torchrun (and `attnlab-cli train --nproc-per-node`, which sets the same variables) gives
// each worker: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and
// under torchrun's elastic agent TORCHELASTIC_USE_AGENT_STORE / TORCHELASTIC_RESTART_COUNT
// (the agent already runs the store: workers join it as clients under its prefix). No
// LibTorch here: the launcher and its tests need only this.

#include <functional>
#include <optional>
#include <string>

namespace attnlab::core {

struct LaunchEnvironment {
  int rank = 0;
  int localRank = 0;
  int worldSize = 1;
  int localWorldSize = 1;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  /// torchrun's agent runs the TCPStore: every worker joins it as a client, with keys under
  /// "/worker/attempt_<restart count>/" (as torch.distributed's env:// rendezvous does).
  bool agentStore = false;
  int restartCount = 0;

  bool distributed() const { return worldSize > 1; }
  /// More than one machine takes part (the Gloo device must then be reachable from others).
  bool multiMachine() const { return worldSize > localWorldSize; }
  /// The store's key prefix: the agent's for torchrun, else a fixed one.
  std::string storePrefix() const;
};

/// Reads the launch variables through `lookup` (getenv by default). nullopt when WORLD_SIZE
/// is not set (a plain single-process run). Throws ConfigError naming the variable and its
/// value for a malformed or inconsistent set (RANK outside [0, WORLD_SIZE), a missing
/// MASTER_ADDR for a multi-process run, a port outside 1..65535, ...).
std::optional<LaunchEnvironment> readLaunchEnvironment(
    const std::function<std::optional<std::string>(const std::string&)>& lookup = {});

}  // namespace attnlab::core
