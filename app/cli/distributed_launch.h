#pragma once

// `attnlab-cli train --nproc-per-node N`: starts N workers of this same program on this
// machine, each with torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), forwards their output line by line with a "[rank r]" prefix (or,
// for --progress jsonl, the rank inside each JSON object),
// and when one fails stops the others and exits non-zero naming the rank and its error. A
// worker (this program started with WORLD_SIZE set, by this launcher or by torchrun) trains
// as one rank instead (train_command.cpp).

#include <string>
#include <vector>

namespace attnlab::app {

struct LaunchOptions {
  int nprocPerNode = 1;
  int nnodes = 1;
  int nodeRank = 0;
  std::string masterAddr = "127.0.0.1";
  int masterPort = 29500;
  std::string glooInterface;
  std::string glooHost;
  double timeoutSeconds = 300;
};

/// Refuses options that contradict each other or the environment (a launch inside a
/// worker, a node rank outside 0..nnodes-1, ...): a ConfigError naming the flag.
void validateLaunch(const LaunchOptions& options, bool insideWorker);

/// Runs `argv` (this program and its arguments) as nprocPerNode workers of node nodeRank;
/// returns the exit status: 0 when every worker succeeded, 130 when they were stopped by
/// Ctrl-C, else 1 after naming the first rank that failed and its last error line.
/// With `jsonLines` (train --progress jsonl) each worker's JSON line is passed on with its
/// rank as the object's first field, and any other line it prints (its errors) as
/// {"rank":r,"event":"output","text":...}: every line of the launch is then one object.
int launchWorkers(const LaunchOptions& options, const std::vector<std::string>& argv,
                  bool jsonLines = false);

}  // namespace attnlab::app
