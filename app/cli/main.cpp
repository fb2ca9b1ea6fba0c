// attnlab-cli: the headless twin of the GUI. Each subcommand lives in its own file and
// registers its options in command_line.cpp; this one names the program, parses and
// dispatches.
#include "app/cli/command_line.h"
#include "core/runtime/blas_kernels.h"
#include "core/runtime/compute_environment.h"

#include <unistd.h>
#include <CLI/CLI.hpp>

#include <string>

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  // OpenBLAS reads OPENBLAS_CORETYPE when it is loaded: where it chose kernels narrower than
  // the CPU supports (core/runtime/blas_kernels.h), run again once with the widest.
  if (attnlab::core::requestBetterBlasKernels()) execv("/proc/self/exe", argv);
  // Named, so that usage lines say "attnlab-cli train", not the path it was started by.
  CLI::App cli{"AttnLab command line: pretraining and attention analysis without a GUI",
               "attnlab-cli"};
  // The LibTorch line, its CUDA and cuDNN, and the GPUs present (or that there are none):
  // which of the two builds (docs/building.md) this is. Probed only when asked.
  cli.set_version_flag("--version", [] {
    return std::string("attnlab-cli ") + ATTNLAB_VERSION + "\n" +
           attnlab::core::describeTorchVersions();
  });
  cli.require_subcommand(1);

  attnlab::app::CommandLineOptions options;
  const attnlab::app::Subcommands commands = attnlab::app::addCommands(cli, options);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  options.train.argv.assign(argv, argv + argc);  // what a worker of --nproc-per-node runs
  return attnlab::app::runChosenCommand(commands, options);
}
