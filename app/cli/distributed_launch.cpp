#include "app/cli/distributed_launch.h"

#include "app/cli/json_line.h"
#include "app/cli/progress_events.h"

#include "core/errors/error.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace attnlab::app {
namespace {

struct Worker {
  int rank = 0;
  pid_t pid = -1;
  int fd = -1;         ///< read end of the worker's stdout + stderr
  std::string buffer;  ///< a line not yet complete
  std::string lastError;
  bool running = true;
  int status = 0;
};

std::atomic<int> g_interrupts{0};
extern "C" void onLauncherInterrupt(int) {
  // The workers run in a process group of their own, so Ctrl-C in a terminal and a signal
  // sent to the launcher alone (kill, the app's Stop) reach them the same way: the poll loop
  // passes each one on as SIGTERM. The first makes them finish the step, agree to stop and
  // checkpoint; a second makes them exit at once, as a second Ctrl-C does to one process.
  g_interrupts.fetch_add(1);
}

/// One line of a worker on the launcher's stdout: "[rank r] line", or for JSON lines the
/// worker's object with its rank first and any other line (its errors) as an "output" one.
void forwardLine(Worker& w, const std::string& line, bool jsonLines) {
  // A JSON line is one of the worker's progress objects; anything else it printed (its
  // errors, a line cut short) goes out wrapped.
  const bool json =
      jsonLines && !line.empty() && line.front() == '{' && nlohmann::json::accept(line);
  if (!json && line.find("error") != std::string::npos) w.lastError = line;
  if (!jsonLines) {
    std::fprintf(stdout, "[rank %d] %s\n", w.rank, line.c_str());
  } else if (json) {
    const std::string rest = line.size() > 2 ? "," + line.substr(1) : "}";
    std::fprintf(stdout, "{\"rank\":%d%s\n", w.rank, rest.c_str());
  } else if (!line.empty()) {
    const std::string out = JsonLine()
                                .add("rank", w.rank)
                                .add("event", progress_events::kOutput)
                                .add("text", line)
                                .str();
    std::fprintf(stdout, "%s\n", out.c_str());
  }
}

void forwardLines(Worker& w, bool flush, bool jsonLines) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = w.buffer.find('\n', start);
    if (end == std::string::npos) break;
    forwardLine(w, w.buffer.substr(start, end - start), jsonLines);
    start = end + 1;
  }
  w.buffer.erase(0, start);
  if (flush && !w.buffer.empty()) {
    forwardLine(w, w.buffer, jsonLines);
    w.buffer.clear();
  }
  std::fflush(stdout);
}

}  // namespace

void validateLaunch(const LaunchOptions& o, bool insideWorker) {
  if (insideWorker && (o.nprocPerNode > 1 || o.nnodes > 1))
    throw ConfigError("--nproc-per-node",
                      "this process is already a worker of a distributed launch (WORLD_SIZE is "
                      "set, e.g. by torchrun): start it without --nproc-per-node / --nnodes");
  if (o.nprocPerNode < 1) throw ConfigError("--nproc-per-node", "must be at least 1");
  if (o.nnodes < 1) throw ConfigError("--nnodes", "must be at least 1");
  if (o.nodeRank < 0 || o.nodeRank >= o.nnodes)
    throw ConfigError("--node-rank",
                      std::to_string(o.nodeRank) + " is not in 0.." + std::to_string(o.nnodes - 1));
  if (o.masterPort < 1 || o.masterPort > 65535)
    throw ConfigError("--master-port", std::to_string(o.masterPort) + " is not in 1..65535");
  if (o.timeoutSeconds <= 0) throw ConfigError("--dist-timeout", "must be positive");
  if (o.nnodes > 1 && (o.masterAddr == "127.0.0.1" || o.masterAddr == "localhost"))
    throw ConfigError("--master-addr",
                      "a run over " + std::to_string(o.nnodes) +
                          " machines needs the address of node 0 that the others can reach, not " +
                          o.masterAddr);
}

int launchWorkers(const LaunchOptions& o, const std::vector<std::string>& argv, bool jsonLines) {
  struct sigaction action {};
  action.sa_handler = onLauncherInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  const int world = o.nprocPerNode * o.nnodes;
  const pid_t launcher = getpid();
  std::vector<Worker> workers(static_cast<std::size_t>(o.nprocPerNode));
  for (int local = 0; local < o.nprocPerNode; ++local) {
    Worker& w = workers[static_cast<std::size_t>(local)];
    w.rank = o.nodeRank * o.nprocPerNode + local;
    int pipeFds[2];
    if (pipe(pipeFds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // Signals come from the launcher only (see onLauncherInterrupt), and a worker whose
      // launcher dies (even by SIGKILL) is told to stop rather than train on unwatched.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != launcher) std::_Exit(130);  // the launcher died before prctl
      dup2(pipeFds[1], STDOUT_FILENO);
      dup2(pipeFds[1], STDERR_FILENO);
      close(pipeFds[0]);
      close(pipeFds[1]);
      setenv("RANK", std::to_string(w.rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(local).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(o.nprocPerNode).c_str(), 1);
      setenv("MASTER_ADDR", o.masterAddr.c_str(), 1);
      setenv("MASTER_PORT", std::to_string(o.masterPort).c_str(), 1);
      setenv("ATTNLAB_LAUNCHER", "attnlab-cli", 1);
      setenv("ATTNLAB_DIST_TIMEOUT", std::to_string(o.timeoutSeconds).c_str(), 1);
      if (!o.glooInterface.empty()) setenv("ATTNLAB_GLOO_INTERFACE", o.glooInterface.c_str(), 1);
      if (!o.glooHost.empty()) setenv("ATTNLAB_GLOO_HOST", o.glooHost.c_str(), 1);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execv("/proc/self/exe", args.data());
      std::fprintf(stderr, "error: cannot start a worker: %s\n", std::strerror(errno));
      std::_Exit(127);
    }
    close(pipeFds[1]);
    w.pid = pid;
    w.fd = pipeFds[0];
  }

  int failedRank = -1;
  auto failedAt = std::chrono::steady_clock::now();
  bool killed = false;
  int forwarded = 0;  // interrupts passed on to the workers
  for (;;) {
    std::vector<pollfd> fds;
    for (auto& w : workers)
      if (w.fd >= 0) fds.push_back({w.fd, POLLIN, 0});
    if (!fds.empty()) poll(fds.data(), fds.size(), 200);
    for (auto& w : workers) {
      if (w.fd < 0) continue;
      char chunk[4096];
      for (;;) {
        pollfd one{w.fd, POLLIN, 0};
        if (poll(&one, 1, 0) <= 0) break;
        const ssize_t n = read(w.fd, chunk, sizeof chunk);
        if (n <= 0) {
          close(w.fd);
          w.fd = -1;
          forwardLines(w, true, jsonLines);
          break;
        }
        w.buffer.append(chunk, static_cast<std::size_t>(n));
        forwardLines(w, false, jsonLines);
      }
    }
    for (const int interrupts = g_interrupts.load(); forwarded < interrupts; ++forwarded)
      for (auto& w : workers)
        if (w.running) kill(w.pid, SIGTERM);
    bool anyRunning = false;
    for (auto& w : workers) {
      if (w.running && waitpid(w.pid, &w.status, WNOHANG) == w.pid) {
        w.running = false;
        const bool ok = WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0;
        const bool stopped = WIFEXITED(w.status) && WEXITSTATUS(w.status) == 130;
        if (!ok && !stopped && failedRank < 0) {
          failedRank = w.rank;
          failedAt = std::chrono::steady_clock::now();
          for (auto& other : workers)  // the others would wait for it until the timeout
            if (other.running) kill(other.pid, SIGTERM);
        }
      }
      anyRunning = anyRunning || w.running || w.fd >= 0;
    }
    if (!anyRunning) break;
    // Workers that do not end within 10 s of a failure are killed.
    if (failedRank >= 0 && !killed &&
        std::chrono::steady_clock::now() - failedAt > std::chrono::seconds(10)) {
      for (auto& w : workers)
        if (w.running) kill(w.pid, SIGKILL);
      killed = true;
    }
  }
  if (failedRank >= 0) {
    // The first to exit is not always the cause: when rank 0 fails, another rank's next
    // collective fails too and may end first. Unless the first was killed by a signal (the
    // OOM killer, a person), name the lowest rank that failed for a reason of its own (not
    // a lost peer); else the first one that ended.
    const Worker& first =
        workers[static_cast<std::size_t>(failedRank - o.nodeRank * o.nprocPerNode)];
    for (const auto& candidate : workers) {
      if (WIFSIGNALED(first.status)) break;
      const bool failed = !(WIFEXITED(candidate.status) && (WEXITSTATUS(candidate.status) == 0 ||
                                                            WEXITSTATUS(candidate.status) == 130));
      if (failed && !candidate.lastError.empty() &&
          candidate.lastError.find("a peer has probably stopped") == std::string::npos) {
        failedRank = candidate.rank;
        break;
      }
    }
    const Worker& w = workers[static_cast<std::size_t>(failedRank - o.nodeRank * o.nprocPerNode)];
    std::string how = WIFSIGNALED(w.status)
                          ? "was killed by signal " + std::to_string(WTERMSIG(w.status))
                          : "exited with status " + std::to_string(WEXITSTATUS(w.status));
    std::fprintf(stderr,
                 "attnlab-cli train: error: rank %d %s%s%s; the other workers were stopped\n",
                 failedRank, how.c_str(), w.lastError.empty() ? "" : ": ", w.lastError.c_str());
    return 1;
  }
  for (const auto& w : workers)
    if (WIFEXITED(w.status) && WEXITSTATUS(w.status) == 130) return 130;
  return g_interrupts.load() > 0 ? 130 : 0;
}

}  // namespace attnlab::app
