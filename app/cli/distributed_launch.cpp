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

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

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

// --- starting the workers ---------------------------------------------------------------

/// Ctrl-C and SIGTERM are counted (onLauncherInterrupt), to be passed on to the workers.
void catchInterrupts() {
  struct sigaction action {};
  action.sa_handler = onLauncherInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

/// torchrun's variables for one worker, and the settings AttnLab's launch adds to them.
void exportWorkerEnvironment(const LaunchOptions& o, int rank, int local) {
  const int world = o.nprocPerNode * o.nnodes;
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("LOCAL_RANK", std::to_string(local).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(world).c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", std::to_string(o.nprocPerNode).c_str(), 1);
  setenv("MASTER_ADDR", o.masterAddr.c_str(), 1);
  setenv("MASTER_PORT", std::to_string(o.masterPort).c_str(), 1);
  setenv("ATTNLAB_LAUNCHER", "attnlab-cli", 1);
  setenv("ATTNLAB_DIST_TIMEOUT", std::to_string(o.timeoutSeconds).c_str(), 1);
  if (!o.glooInterface.empty()) setenv("ATTNLAB_GLOO_INTERFACE", o.glooInterface.c_str(), 1);
  if (!o.glooHost.empty()) setenv("ATTNLAB_GLOO_HOST", o.glooHost.c_str(), 1);
}

/// In the forked child: its output into the pipe, the worker's environment, then this
/// program again with `argv`.
[[noreturn]] void becomeWorker(const LaunchOptions& o, const std::vector<std::string>& argv,
                               int rank, int local, pid_t launcher, const int pipeFds[2]) {
  // Signals come from the launcher only (see onLauncherInterrupt), and a worker whose
  // launcher dies (even by SIGKILL) is told to stop rather than train on unwatched.
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != launcher) std::_Exit(130);  // the launcher died before prctl
  dup2(pipeFds[1], STDOUT_FILENO);
  dup2(pipeFds[1], STDERR_FILENO);
  close(pipeFds[0]);
  close(pipeFds[1]);
  exportWorkerEnvironment(o, rank, local);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  std::fprintf(stderr, "error: cannot start a worker: %s\n", std::strerror(errno));
  std::_Exit(127);
}

/// Forks worker `local` of this node; the launcher keeps the read end of its output.
Worker startWorker(const LaunchOptions& o, const std::vector<std::string>& argv, int local,
                   pid_t launcher) {
  Worker w;
  w.rank = o.nodeRank * o.nprocPerNode + local;
  int pipeFds[2];
  if (pipe(pipeFds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) becomeWorker(o, argv, w.rank, local, launcher, pipeFds);
  close(pipeFds[1]);
  w.pid = pid;
  w.fd = pipeFds[0];
  return w;
}

std::vector<Worker> startWorkers(const LaunchOptions& o, const std::vector<std::string>& argv) {
  const pid_t launcher = getpid();
  std::vector<Worker> workers;
  workers.reserve(static_cast<std::size_t>(o.nprocPerNode));
  for (int local = 0; local < o.nprocPerNode; ++local)
    workers.push_back(startWorker(o, argv, local, launcher));
  return workers;
}

// --- watching them ------------------------------------------------------------------------

/// The first worker that failed, and what the launcher has done about it.
struct FailureWatch {
  int failedRank = -1;
  std::chrono::steady_clock::time_point failedAt = std::chrono::steady_clock::now();
  bool killed = false;  ///< those still running 10 s after the failure were killed
};

void signalRunningWorkers(std::vector<Worker>& workers, int signal) {
  for (auto& w : workers)
    if (w.running) kill(w.pid, signal);
}

/// Forwards what `w` has written so far without blocking; at the end of its output closes
/// the pipe and forwards an unfinished last line too.
void readWorkerOutput(Worker& w, bool jsonLines) {
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

/// Waits up to 200 ms for any worker's output (the loop's pace), then forwards all there is.
void forwardWorkerOutput(std::vector<Worker>& workers, bool jsonLines) {
  std::vector<pollfd> fds;
  for (auto& w : workers)
    if (w.fd >= 0) fds.push_back({w.fd, POLLIN, 0});
  if (!fds.empty()) poll(fds.data(), fds.size(), 200);
  for (auto& w : workers)
    if (w.fd >= 0) readWorkerOutput(w, jsonLines);
}

/// Each interrupt the launcher received since the last call, passed on as one SIGTERM.
void passOnInterrupts(std::vector<Worker>& workers, int& forwarded) {
  for (const int interrupts = g_interrupts.load(); forwarded < interrupts; ++forwarded)
    signalRunningWorkers(workers, SIGTERM);
}

/// Neither success (0) nor a stop on request (130).
bool endedInFailure(int status) {
  return !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 130));
}

/// Collects the workers that have ended; the first that failed stops the others, which
/// would otherwise wait for it until the timeout.
void reapEndedWorkers(std::vector<Worker>& workers, FailureWatch& watch) {
  for (auto& w : workers) {
    if (!w.running || waitpid(w.pid, &w.status, WNOHANG) != w.pid) continue;
    w.running = false;
    if (endedInFailure(w.status) && watch.failedRank < 0) {
      watch.failedRank = w.rank;
      watch.failedAt = std::chrono::steady_clock::now();
      signalRunningWorkers(workers, SIGTERM);
    }
  }
}

/// Whether a worker still runs or still has output to be read.
bool anyWorkerLeft(const std::vector<Worker>& workers) {
  return std::any_of(workers.begin(), workers.end(),
                     [](const Worker& w) { return w.running || w.fd >= 0; });
}

/// Workers that do not end within 10 s of a failure are killed.
void killStragglers(std::vector<Worker>& workers, FailureWatch& watch) {
  if (watch.failedRank < 0 || watch.killed ||
      std::chrono::steady_clock::now() - watch.failedAt <= std::chrono::seconds(10))
    return;
  signalRunningWorkers(workers, SIGKILL);
  watch.killed = true;
}

/// Forwards output and interrupts until every worker has ended and its output is read;
/// returns the rank that failed first, or -1.
int superviseWorkers(std::vector<Worker>& workers, bool jsonLines) {
  FailureWatch watch;
  int forwarded = 0;  // interrupts passed on to the workers
  for (;;) {
    forwardWorkerOutput(workers, jsonLines);
    passOnInterrupts(workers, forwarded);
    reapEndedWorkers(workers, watch);
    if (!anyWorkerLeft(workers)) break;
    killStragglers(workers, watch);
  }
  return watch.failedRank;
}

// --- the outcome --------------------------------------------------------------------------

const Worker& workerOfRank(const std::vector<Worker>& workers, const LaunchOptions& o, int rank) {
  return workers[static_cast<std::size_t>(rank - o.nodeRank * o.nprocPerNode)];
}

/// The rank the error names. The first to exit is not always the cause: when rank 0 fails,
/// another rank's next collective fails too and may end first. Unless the first was killed
/// by a signal (the OOM killer, a person), name the lowest rank that failed for a reason of
/// its own (not a lost peer); else the first one that ended.
int rankToName(const std::vector<Worker>& workers, const LaunchOptions& o, int firstFailed) {
  if (WIFSIGNALED(workerOfRank(workers, o, firstFailed).status)) return firstFailed;
  for (const auto& candidate : workers)
    if (endedInFailure(candidate.status) && !candidate.lastError.empty() &&
        candidate.lastError.find("a peer has probably stopped") == std::string::npos)
      return candidate.rank;
  return firstFailed;
}

/// Names the failed rank, how it ended and its last error line; returns the exit status 1.
int reportFailure(const Worker& w) {
  std::string how = WIFSIGNALED(w.status)
                        ? "was killed by signal " + std::to_string(WTERMSIG(w.status))
                        : "exited with status " + std::to_string(WEXITSTATUS(w.status));
  std::fprintf(stderr, "attnlab-cli train: error: rank %d %s%s%s; the other workers were stopped\n",
               w.rank, how.c_str(), w.lastError.empty() ? "" : ": ", w.lastError.c_str());
  return 1;
}

/// No rank failed: 130 when any was stopped or the launcher was interrupted, else 0.
int launchExitStatus(const std::vector<Worker>& workers) {
  for (const auto& w : workers)
    if (WIFEXITED(w.status) && WEXITSTATUS(w.status) == 130) return 130;
  return g_interrupts.load() > 0 ? 130 : 0;
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
  catchInterrupts();
  std::vector<Worker> workers = startWorkers(o, argv);
  const int failedRank = superviseWorkers(workers, jsonLines);
  if (failedRank >= 0)
    return reportFailure(workerOfRank(workers, o, rankToName(workers, o, failedRank)));
  return launchExitStatus(workers);
}

}  // namespace attnlab::app
