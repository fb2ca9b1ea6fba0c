#include "app/cli/train_command.h"

#include "app/cli/command_errors.h"
#include "app/cli/progress_printer.h"
#include "core/config/config_loader.h"
#include "core/config/config_presets.h"
#include "core/distributed/distributed_context.h"
#include "core/distributed/launch_environment.h"
#include "core/train/trainer.h"
#include "core/train/training_control.h"

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

namespace attnlab::app {

namespace {

/// What a rank other than 0 prints: its data phases when it is its machine's local rank 0
/// (it prepares, or opens rank 0's shared cache), else only the line saying whom it waits
/// for (the launcher prefixes "[rank r]").
class DataPhaseRelay : public core::TrainingObserver {
 public:
  DataPhaseRelay(ProgressPrinter& printer, bool localRoot)
      : m_printer(printer), m_localRoot(localRoot) {}
  void onEvent(const core::TrainingEvent& event) override {
    const auto* phase = std::get_if<core::PhaseEvent>(&event);
    if (phase == nullptr) return;
    if (m_localRoot || phase->phase.rfind("preparing data: waiting", 0) == 0) {
      m_printer.onEvent(event);
    }
  }

 private:
  ProgressPrinter& m_printer;
  bool m_localRoot;
};

std::atomic<bool> g_stopRequested{false};

extern "C" void onInterrupt(int) {
  if (g_stopRequested.exchange(true)) {
    // Second Ctrl-C: the user does not want to wait for the checkpoint.
    const char msg[] = "\ninterrupted again: exiting without a final checkpoint\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    std::_Exit(130);
  }
  const char msg[] = "\nstopping after this step (writing a checkpoint; Ctrl-C again to abort)\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
}

}  // namespace

/// This worker's share of the launch: Gloo device and timeout from the flags, or from what
/// the launcher passed down.
core::DistributedOptions distributedOptions(const LaunchOptions& launch) {
  core::DistributedOptions d;
  const auto fromEnv = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  d.glooInterface =
      !launch.glooInterface.empty() ? launch.glooInterface : fromEnv("ATTNLAB_GLOO_INTERFACE");
  d.glooHost = !launch.glooHost.empty() ? launch.glooHost : fromEnv("ATTNLAB_GLOO_HOST");
  double seconds = launch.timeoutSeconds;
  if (const std::string t = fromEnv("ATTNLAB_DIST_TIMEOUT"); !t.empty()) seconds = std::stod(t);
  d.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
  return d;
}

/// SIGINT and SIGTERM ask the trainer to stop at the next step (onInterrupt).
void stopOnInterrupt() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int runTrain(const TrainOptions& options) {
  return runReportingErrors("train", [&] {
    const auto environment = core::readLaunchEnvironment();
    // Our own workers carry the launcher's flags on their command line; torchrun's do not.
    const bool ownWorker = std::getenv("ATTNLAB_LAUNCHER") != nullptr;
    validateLaunch(options.launch, environment.has_value() && !ownWorker);
    core::RunConfig config =
        core::loadRunConfig(core::resolveConfigArgument(options.config), options.overrides);
    if (!environment && options.launch.nprocPerNode * options.launch.nnodes > 1)
      return launchWorkers(options.launch, options.argv, options.progress == ProgressFormat::Jsonl);
    std::unique_ptr<core::DistributedContext> distributed;
    if (environment && environment->distributed()) {
      // The ranks of one machine share its cores.
      if (config.train.threads == 0)
        config.train.threads = std::max(
            1, static_cast<int>(std::thread::hardware_concurrency()) / environment->localWorldSize);
      distributed =
          core::DistributedContext::connect(*environment, distributedOptions(options.launch));
    }
    const bool root = !distributed || distributed->isRoot();
    const std::filesystem::path runDir =
        options.runDir.empty() ? std::filesystem::path("runs") / config.run.name : options.runDir;

    stopOnInterrupt();

    ProgressPrinter printer(stdout, !options.plainProgress && ProgressPrinter::isTerminal(stdout),
                            options.progress);
    // Rank 0 reports for the run; the other ranks speak only of their data (another machine's
    // local rank 0 may prepare its own copy; the rest say once whom they wait for) and when
    // something fails.
    DataPhaseRelay relay(printer, environment && environment->localRank == 0);
    core::Trainer trainer(config, runDir,
                          root ? static_cast<core::TrainingObserver*>(&printer) : &relay,
                          distributed.get());
    core::TrainingControl control;
    control.linkStopFlag(&g_stopRequested);
    if (options.stopAfterStep >= 0) control.stopAfterStep(options.stopAfterStep);
    const auto summary = trainer.run(control);
    if (root) printer.message("run log: " + summary.runLog.string());
    const bool interrupted = g_stopRequested.load();
    if (summary.stopped && interrupted) {
      if (root) printer.message("run the same command to resume");
      return 130;
    }
    if (!root) return 0;
    if (summary.stopped) {  // --stop-after-step: a planned end of this session
      printer.message("stopped after step " + std::to_string(summary.finalStep) +
                      " as asked (--stop-after-step); the same command without it resumes");
      return 0;
    }
    printer.message("done: " + std::to_string(summary.finalStep) + " steps" +
                    (summary.lastEvalLoss
                         ? ", validation loss " + std::to_string(*summary.lastEvalLoss)
                         : std::string()));
    return 0;
  });
}

}  // namespace attnlab::app
