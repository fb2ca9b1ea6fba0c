// attnlab-cli: the headless twin of the GUI. Each subcommand lives in its own file;
// this one only parses arguments and dispatches.
#include "app/cli/smoke_command.h"

#include <CLI/CLI.hpp>

#include <iostream>

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  CLI::App cli{"AttnLab command line: pretraining and attention analysis without a GUI"};
  cli.set_version_flag("--version", std::string("attnlab-cli ") + ATTNLAB_VERSION);
  cli.require_subcommand(1);

  attnlab::app::SmokeOptions smoke;
  auto* smokeCmd = cli.add_subcommand(
      "smoke", "Check the stack end to end: LibTorch, BLAS speed, SentencePiece on WordNet");
  smokeCmd->add_option("--work-dir", smoke.workDir, "Folder for the corpus and tokenizer files")
      ->capture_default_str();
  smokeCmd->add_option("--wordnet-dir", smoke.wordnetDir, "Folder holding WordNet's data.* files")
      ->capture_default_str();
  smokeCmd->add_option("--vocab-size", smoke.vocabSize, "SentencePiece vocabulary size")
      ->check(CLI::Range(8, 1000000))
      ->capture_default_str();
  smokeCmd->add_option("--threads", smoke.threads, "Intra-op threads (0 = number of cores)")
      ->check(CLI::NonNegativeNumber);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (smokeCmd->parsed()) return attnlab::app::runSmoke(smoke, std::cout, std::cerr);
  return 0;
}
