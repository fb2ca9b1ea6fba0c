#include "app/cli/train_command.h"

#include "app/cli/command_errors.h"
#include "app/cli/progress_printer.h"
#include "core/config/config_loader.h"
#include "core/config/config_presets.h"
#include "core/train/trainer.h"

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace attnlab::app {
namespace {

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

int runTrain(const TrainOptions& options) {
  return runReportingErrors("train", [&] {
    const core::RunConfig config =
        core::loadRunConfig(core::resolveConfigArgument(options.config), options.overrides);
    const std::filesystem::path runDir =
        options.runDir.empty() ? std::filesystem::path("runs") / config.run.name : options.runDir;

    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);

    ProgressPrinter printer(stdout, !options.plainProgress && ProgressPrinter::isTerminal(stdout));
    core::Trainer trainer(config, runDir, &printer);
    const auto summary = trainer.run(g_stopRequested);
    printer.message("run log: " + summary.runLog.string());
    if (summary.stopped) return 130;
    printer.message("done: " + std::to_string(summary.finalStep) + " steps" +
                    (summary.lastEvalLoss
                         ? ", validation loss " + std::to_string(*summary.lastEvalLoss)
                         : std::string()));
    return 0;
  });
}

}  // namespace attnlab::app
