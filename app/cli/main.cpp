// attnlab-cli: the headless twin of the GUI. Each subcommand lives in its own file;
// this one only parses arguments and dispatches.
#include "app/cli/inspect_command.h"
#include "app/cli/smoke_command.h"
#include "app/cli/train_command.h"

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

  attnlab::app::TrainOptions train;
  auto* trainCmd = cli.add_subcommand(
      "train", "Pretrain an encoder with MLM; resumes when the run directory holds a checkpoint");
  trainCmd->add_option("--config", train.config, "Run configuration (TOML or JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  trainCmd->add_option("--run-dir", train.runDir, "Run directory (default: runs/<run.name>)");
  trainCmd
      ->add_option("--set", train.overrides, "Override a config key: key.path=value (repeatable)")
      ->take_all();
  trainCmd->add_flag("--plain", train.plainProgress, "Plain progress lines even on a terminal");

  attnlab::app::InspectOptions inspect;
  auto* inspectCmd = cli.add_subcommand(
      "inspect",
      "Write one text's attention under a checkpoint (probabilities, scores, ASA masks)");
  inspectCmd
      ->add_option("checkpoint", inspect.checkpoint,
                   "Checkpoint file, or a run directory (its latest checkpoint)")
      ->required()
      ->check(CLI::ExistingPath);
  inspectCmd->add_option("--text", inspect.text, "The text to inspect")->required();
  inspectCmd->add_option("--out", inspect.out, "Output HDF5 file")->required();
  inspectCmd->add_option("--tokenizer", inspect.tokenizer,
                         "SentencePiece model (default: the run's tokenizer.model)");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (smokeCmd->parsed()) return attnlab::app::runSmoke(smoke, std::cout, std::cerr);
  if (trainCmd->parsed()) return attnlab::app::runTrain(train);
  if (inspectCmd->parsed()) return attnlab::app::runInspect(inspect);
  return 0;
}
