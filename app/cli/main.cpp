// attnlab-cli: the headless twin of the GUI. Each subcommand lives in its own file;
// this one only parses arguments and dispatches.
#include "app/cli/analyze_command.h"
#include "app/cli/export_command.h"
#include "app/cli/inspect_command.h"
#include "app/cli/probe_command.h"
#include "app/cli/smoke_command.h"
#include "app/cli/train_command.h"
#include "core/runtime/compute_environment.h"

#include <CLI/CLI.hpp>

#include <iostream>

#ifndef ATTNLAB_VERSION
#define ATTNLAB_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
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
  // Not CLI::ExistingFile: a bare name is looked up among the presets (runTrain does it).
  trainCmd
      ->add_option("--config", train.config,
                   "Run configuration: a TOML or JSON file, or a preset name (tiny, bench, "
                   "bert-base, ...: the files of <prefix>/share/attnlab/configs)")
      ->required();
  trainCmd->add_option("--run-dir", train.runDir, "Run directory (default: runs/<run.name>)");
  trainCmd
      ->add_option("--set", train.overrides, "Override a config key: key.path=value (repeatable)")
      ->take_all();
  trainCmd->add_flag("--plain", train.plainProgress, "Plain progress lines even on a terminal");
  trainCmd
      ->add_option("--progress", train.progress,
                   "human: a bar or plain lines; jsonl: one JSON object per line for a program "
                   "that follows the run (docs/distributed.md)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, attnlab::app::ProgressFormat>{
              {"human", attnlab::app::ProgressFormat::Human},
              {"jsonl", attnlab::app::ProgressFormat::Jsonl}},
          CLI::ignore_case))
      ->default_str("human");
  trainCmd
      ->add_option("--stop-after-step", train.stopAfterStep,
                   "End this session after step N with a checkpoint (exit 0); the same command "
                   "without it resumes there")
      ->check(CLI::NonNegativeNumber);
  // Data-parallel training (docs/distributed.md): the same flags as torchrun's.
  trainCmd
      ->add_option("--nproc-per-node", train.launch.nprocPerNode,
                   "Train data-parallel with N worker processes on this machine (c10d Gloo)")
      ->check(CLI::PositiveNumber);
  trainCmd->add_option("--nnodes", train.launch.nnodes, "Machines taking part (default 1)")
      ->check(CLI::PositiveNumber);
  trainCmd->add_option("--node-rank", train.launch.nodeRank, "This machine's index, 0..nnodes-1");
  trainCmd->add_option("--master-addr", train.launch.masterAddr,
                       "Address of node 0, where rank 0 serves the store (default 127.0.0.1)");
  trainCmd->add_option("--master-port", train.launch.masterPort,
                       "Port of the store on node 0 (default 29500)");
  trainCmd->add_option("--gloo-interface", train.launch.glooInterface,
                       "Network interface Gloo binds to (several machines: the one the others "
                       "reach this machine by)");
  trainCmd->add_option("--gloo-host", train.launch.glooHost,
                       "Host name or address Gloo binds to (instead of --gloo-interface)");
  trainCmd->add_option("--dist-timeout", train.launch.timeoutSeconds,
                       "Seconds a rank waits for its peers at start and in each collective "
                       "(default 300)");

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

  attnlab::app::AnalyzeCommandOptions analyze;
  auto* analyzeCmd = cli.add_subcommand(
      "analyze",
      "Attention statistics of a checkpoint over an evaluation set: entropy, layer-wise JSD, "
      "head summaries, guidance conformity, the variants' series; JSON, CSV and Markdown");
  analyzeCmd->add_option("run", analyze.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  analyzeCmd->add_option("--step", analyze.step, "Checkpoint step (default: the latest)");
  analyzeCmd
      ->add_option("--examples", analyze.examples,
                   "Sequences of the evaluation set to use (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  analyzeCmd
      ->add_option("--text", analyze.text,
                   "Evaluate on this text file (one sequence a line) instead of the run's "
                   "validation split")
      ->check(CLI::ExistingFile);
  analyzeCmd->add_option("--out", analyze.out, "Report folder (default: <run>/analysis/step-<S>)");
  analyzeCmd->add_option("--jsd-unit", analyze.jsdUnit, "Unit of the JSD: bits or nats")
      ->check(CLI::IsMember({"bits", "nats"}))
      ->capture_default_str();
  analyzeCmd->add_flag("--jsd-smoothing", analyze.clarkSmoothing,
                       "Smooth rows before the JSD as Clark et al. (0.001/n + 0.999 p)");
  analyzeCmd
      ->add_option("--pairwise", analyze.pairwise,
                   "Sequences for the all-pairs head JSD matrix (0 = skip it)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  analyzeCmd->add_flag("--over-checkpoints", analyze.overCheckpoints,
                       "Also compute the statistics under every checkpoint, as series over steps");
  analyzeCmd->add_flag("--no-snapshots", analyze.noSnapshots,
                       "Skip the statistics of the log's attention snapshots over training");
  analyzeCmd->add_option("--batch-size", analyze.batchSize, "Sequences per forward pass")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  analyzeCmd->add_flag("--plain", analyze.plain, "Plain progress lines even on a terminal");

  auto* probeCmd = cli.add_subcommand("probe", "Probing tasks on a run's attention");
  probeCmd->require_subcommand(1);
  attnlab::app::ProbeCorefCommandOptions coref;
  auto* corefCmd = probeCmd->add_subcommand(
      "coref", "Coreference: antecedent selection per head (Clark et al.) with baselines beside");
  corefCmd->add_option("run", coref.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  corefCmd
      ->add_option("--dataset", coref.dataset,
                   "synthetic (reflexives, Lin et al.'s grammar), conll:PATH (CoNLL-2012) or "
                   "lin:PATH (Lin et al.'s reflexive file, refl.0 .. refl.8)")
      ->capture_default_str();
  corefCmd->add_option("--step", coref.step, "Checkpoint step (default: the latest)");
  corefCmd->add_option("--size", coref.size, "Synthetic sentences to generate")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  corefCmd->add_option("--seed", coref.seed, "Seed of the synthetic data")->capture_default_str();
  corefCmd->add_flag("--distractor", coref.distractor,
                     "Synthetic: put a distractor phrase before each sentence");
  corefCmd
      ->add_option("--argmax", coref.argmax,
                   "Words a head's argmax ranges over: all (the official scorer) or "
                   "exclude-self-special")
      ->check(CLI::IsMember({"all", "exclude-self-special"}))
      ->capture_default_str();
  corefCmd->add_option("--out", coref.out,
                       "Report folder (default: <run>/analysis/coref-step-<S>)");
  corefCmd->add_flag("--plain", coref.plain, "Plain progress lines even on a terminal");

  attnlab::app::ExportCommandOptions exportOptions;
  auto* exportCmd = attnlab::app::addExportCommand(cli, exportOptions);

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  if (smokeCmd->parsed()) return attnlab::app::runSmoke(smoke, std::cout, std::cerr);
  if (trainCmd->parsed()) {
    train.argv.assign(argv, argv + argc);  // what a worker of --nproc-per-node runs
    return attnlab::app::runTrain(train);
  }
  if (inspectCmd->parsed()) return attnlab::app::runInspect(inspect);
  if (analyzeCmd->parsed()) return attnlab::app::runAnalyze(analyze);
  if (corefCmd->parsed()) return attnlab::app::runProbeCoref(coref);
  if (exportCmd->parsed()) return attnlab::app::runExport(exportOptions);
  return 0;
}
