#include "app/cli/command_line.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <string>

namespace attnlab::app {

namespace {

// Data-parallel training (docs/distributed.md): the same flags as torchrun's.
void addLaunchOptions(CLI::App& train, LaunchOptions& launch) {
  train
      .add_option("--nproc-per-node", launch.nprocPerNode,
                  "Train data-parallel with N worker processes on this machine (c10d Gloo)")
      ->check(CLI::PositiveNumber);
  train.add_option("--nnodes", launch.nnodes, "Machines taking part (default 1)")
      ->check(CLI::PositiveNumber);
  train.add_option("--node-rank", launch.nodeRank, "This machine's index, 0..nnodes-1");
  train.add_option("--master-addr", launch.masterAddr,
                   "Address of node 0, where rank 0 serves the store (default 127.0.0.1)");
  train.add_option("--master-port", launch.masterPort,
                   "Port of the store on node 0 (default 29500)");
  train.add_option("--gloo-interface", launch.glooInterface,
                   "Network interface Gloo binds to (several machines: the one the others "
                   "reach this machine by)");
  train.add_option("--gloo-host", launch.glooHost,
                   "Host name or address Gloo binds to (instead of --gloo-interface)");
  train.add_option("--dist-timeout", launch.timeoutSeconds,
                   "Seconds a rank waits for its peers at start and in each collective "
                   "(default 300)");
}

}  // namespace

CLI::App* addSmokeCommand(CLI::App& cli, SmokeOptions& smoke) {
  auto* cmd = cli.add_subcommand(
      "smoke", "Check the stack end to end: LibTorch, BLAS speed, SentencePiece on WordNet");
  cmd->add_option("--work-dir", smoke.workDir, "Folder for the corpus and tokenizer files")
      ->capture_default_str();
  cmd->add_option("--wordnet-dir", smoke.wordnetDir, "Folder holding WordNet's data.* files")
      ->capture_default_str();
  cmd->add_option("--vocab-size", smoke.vocabSize, "SentencePiece vocabulary size")
      ->check(CLI::Range(8, 1000000))
      ->capture_default_str();
  cmd->add_option("--threads", smoke.threads, "Intra-op threads (0 = number of cores)")
      ->check(CLI::NonNegativeNumber);
  return cmd;
}

CLI::App* addTrainCommand(CLI::App& cli, TrainOptions& train) {
  auto* cmd = cli.add_subcommand(
      "train", "Pretrain an encoder with MLM; resumes when the run directory holds a checkpoint");
  // Not CLI::ExistingFile: a bare name is looked up among the presets (runTrain does it).
  cmd->add_option("--config", train.config,
                  "Run configuration: a TOML or JSON file, or a preset name (tiny, bench, "
                  "bert-base, ...: the files of <prefix>/share/attnlab/configs)")
      ->required();
  cmd->add_option("--run-dir", train.runDir, "Run directory (default: runs/<run.name>)");
  cmd->add_option("--set", train.overrides, "Override a config key: key.path=value (repeatable)")
      ->take_all();
  cmd->add_flag("--plain", train.plainProgress, "Plain progress lines even on a terminal");
  cmd->add_option("--progress", train.progress,
                  "human: a bar or plain lines; jsonl: one JSON object per line for a program "
                  "that follows the run (docs/distributed.md)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, ProgressFormat>{{"human", ProgressFormat::Human},
                                                {"jsonl", ProgressFormat::Jsonl}},
          CLI::ignore_case))
      ->default_str("human");
  cmd->add_option("--stop-after-step", train.stopAfterStep,
                  "End this session after step N with a checkpoint (exit 0); the same command "
                  "without it resumes there")
      ->check(CLI::NonNegativeNumber);
  addLaunchOptions(*cmd, train.launch);
  return cmd;
}

CLI::App* addInspectCommand(CLI::App& cli, InspectOptions& inspect) {
  auto* cmd = cli.add_subcommand(
      "inspect",
      "Write one text's attention under a checkpoint: weights (probabilities, scores, ASA "
      "masks), rollout, norm-based attention, the logit lens");
  cmd->add_option("checkpoint", inspect.checkpoint,
                  "Checkpoint file, or a run directory (its latest checkpoint)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--text", inspect.text, "The text to inspect (required unless --hooks)");
  cmd->add_option("--out", inspect.out, "Output HDF5 file (required unless --hooks)");
  cmd->add_flag("--hooks", inspect.listHooks,
                "List the model's named hook points with their shapes, and exit");
  cmd->add_option("--capture", inspect.capture,
                  "Write these hook points (names or patterns such as 'blocks.*.attn.pattern'; "
                  "repeatable or comma-separated) instead of the views")
      ->delimiter(',');
  cmd->add_option("--tokenizer", inspect.tokenizer,
                  "SentencePiece model (default: the run's tokenizer.model)");
  cmd->add_option("--view", inspect.views,
                  "What to write (repeatable or comma-separated): weights (probabilities, "
                  "scores, ASA masks), rollout, norms, lens (default weights)")
      ->delimiter(',')
      ->check(CLI::IsMember({"weights", "rollout", "norms", "lens"}));
  cmd->add_option("--top", inspect.top, "The logit lens's best tokens per cell (default 5)")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--mask", inspect.masks,
                  "Token positions (0 = <s>) to replace by <mask> before the pass, "
                  "comma-separated")
      ->delimiter(',');
  return cmd;
}

CLI::App* addAnalyzeCommand(CLI::App& cli, AnalyzeCommandOptions& analyze) {
  auto* cmd = cli.add_subcommand(
      "analyze",
      "Attention statistics of a checkpoint over an evaluation set: entropy, layer-wise JSD, "
      "head summaries, guidance conformity, rollout, weights against norms, the logit lens, "
      "the variants' series; JSON, CSV and Markdown");
  cmd->add_option("run", analyze.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--step", analyze.step, "Checkpoint step (default: the latest)");
  cmd->add_option("--examples", analyze.examples,
                  "Sequences of the evaluation set to use (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--text", analyze.text,
                  "Evaluate on this text file (one sequence a line) instead of the run's "
                  "validation split")
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", analyze.out, "Report folder (default: <run>/analysis/step-<S>)");
  cmd->add_option("--jsd-unit", analyze.jsdUnit, "Unit of the JSD: bits or nats")
      ->check(CLI::IsMember({"bits", "nats"}))
      ->capture_default_str();
  cmd->add_flag("--jsd-smoothing", analyze.clarkSmoothing,
                "Smooth rows before the JSD as Clark et al. (0.001/n + 0.999 p)");
  cmd->add_option("--pairwise", analyze.pairwise,
                  "Sequences for the all-pairs head JSD matrix (0 = skip it)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--over-checkpoints", analyze.overCheckpoints,
                "Also compute the statistics under every checkpoint, as series over steps");
  cmd->add_flag("--no-snapshots", analyze.noSnapshots,
                "Skip the statistics of the log's attention snapshots over training");
  cmd->add_flag("--no-rollout", analyze.noRollout,
                "Skip the attention rollout summary (diagonal mass, spread, entropy per layer)");
  cmd->add_flag("--no-norms", analyze.noNorms,
                "Skip the weight-norm summary (Kobayashi et al.'s norms against the weights)");
  cmd->add_flag("--no-lens", analyze.noLens,
                "Skip the logit lens summary at masked positions (a second forward pass)");
  cmd->add_flag("--heads", analyze.heads,
                "Head importance (Michel et al.'s gradient of the MLM loss by a gate per head), "
                "single-head ablation and pruning curves, at masked positions");
  cmd->add_flag("--no-ablation", analyze.noAblation,
                "With --heads: skip masking each head alone (layers x heads evaluation passes)");
  cmd->add_flag("--health", analyze.health,
                "Also write the attention-health report of the same checkpoint and evaluation "
                "set (as attnlab-cli health does, into <run>/analysis/health-step-<S>)");
  cmd->add_option("--pruning-seeds", analyze.pruningSeeds,
                  "With --heads: seeds of the random pruning orders (the baseline curves)")
      ->capture_default_str();
  cmd->add_option("--batch-size", analyze.batchSize, "Sequences per forward pass")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--plain", analyze.plain, "Plain progress lines even on a terminal");
  return cmd;
}

CLI::App* addProbeCommand(CLI::App& cli, ProbeCorefCommandOptions& coref) {
  auto* probe = cli.add_subcommand("probe", "Probing tasks on a run's attention");
  probe->require_subcommand(1);
  auto* cmd = probe->add_subcommand(
      "coref", "Coreference: antecedent selection per head (Clark et al.) with baselines beside");
  cmd->add_option("run", coref.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--dataset", coref.dataset,
                  "synthetic (reflexives, Lin et al.'s grammar), conll:PATH (CoNLL-2012) or "
                  "lin:PATH (Lin et al.'s reflexive file, refl.0 .. refl.8)")
      ->capture_default_str();
  cmd->add_option("--step", coref.step, "Checkpoint step (default: the latest)");
  cmd->add_option("--size", coref.size, "Synthetic sentences to generate")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--seed", coref.seed, "Seed of the synthetic data")->capture_default_str();
  cmd->add_flag("--distractor", coref.distractor,
                "Synthetic: put a distractor phrase before each sentence");
  cmd->add_option("--argmax", coref.argmax,
                  "Words a head's argmax ranges over: all (the official scorer) or "
                  "exclude-self-special")
      ->check(CLI::IsMember({"all", "exclude-self-special"}))
      ->capture_default_str();
  cmd->add_option("--out", coref.out, "Report folder (default: <run>/analysis/coref-step-<S>)");
  cmd->add_flag("--plain", coref.plain, "Plain progress lines even on a terminal");
  return cmd;
}

CLI::App* addCompareCommand(CLI::App& cli, CompareCommandOptions& compare) {
  auto* cmd = cli.add_subcommand(
      "compare",
      "Compare two checkpoints (two runs, or two steps of one) on the same inputs: head JSD "
      "with the Hungarian matching per layer, linear CKA between layers; JSON, CSV and "
      "Markdown");
  cmd->add_option("run_a", compare.runA, "Run A: a run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("run_b", compare.runB, "Run B (may be run A, at another --step-b)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_flag("--heads", compare.heads,
                "Compare heads (required: the only comparison so far): JSD between every head "
                "of A and of B per layer, their matching, and linear CKA");
  cmd->add_option("--step-a", compare.stepA, "Run A's checkpoint step (default: the latest)");
  cmd->add_option("--step-b", compare.stepB, "Run B's checkpoint step (default: the latest)");
  cmd->add_option("--text", compare.text,
                  "Inputs from this text file (one sequence a line) instead of run A's "
                  "validation split")
      ->check(CLI::ExistingFile);
  cmd->add_option("--examples", compare.examples, "Sequences of the inputs to use (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--cka-tokens", compare.ckaTokens,
                  "Tokens whose hidden states enter linear CKA (the first real ones)")
      ->check(CLI::Range(2, 1000000))
      ->capture_default_str();
  cmd->add_option(
      "--out", compare.out,
      "Report folder (default: <run A>/analysis/compare-step-<SA>-vs-<run B>-step-<SB>)");
  cmd->add_option("--batch-size", compare.batchSize, "Sequences per forward pass")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--plain", compare.plain, "Plain progress lines even on a terminal");
  return cmd;
}

CLI::App* addQkMapCommand(CLI::App& cli, QkMapCommandOptions& qk) {
  auto* cmd = cli.add_subcommand(
      "qk-map",
      "A head's query-key map (AttentionViz: queries and keys normalised, joint PCA) over the "
      "validation split or a text file, as HDF5");
  cmd->add_option("run", qk.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--layer", qk.layer, "Layer (from 0)")->required();
  auto* head = cmd->add_option("--head", qk.head, "Head (from 0)");
  cmd->add_flag("--all-heads", qk.allHeads, "Every head of the layer, one map each")
      ->excludes(head);
  cmd->add_option("--step", qk.step, "Checkpoint step (default: the latest)");
  cmd->add_option("--text", qk.text,
                  "Tokens from this text file (one sequence a line) instead of the validation "
                  "split")
      ->check(CLI::ExistingFile);
  cmd->add_option("--tokens", qk.tokens, "Tokens to place (each as a query and as a key)")
      ->check(CLI::Range(1, 10000000))
      ->capture_default_str();
  cmd->add_option("--out", qk.out, "Output HDF5 file")->required();
  cmd->add_option("--batch-size", qk.batchSize, "Sequences per forward pass")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--plain", qk.plain, "Plain progress lines even on a terminal");
  return cmd;
}

CLI::App* addHealthCommand(CLI::App& cli, HealthCommandOptions& health) {
  auto* cmd = cli.add_subcommand(
      "health",
      "Attention health of a checkpoint over an evaluation set: sinks per token class, "
      "entropy collapse, S_max and the spectral norm of W_Q W_K^T, massive activations, rank "
      "collapse; JSON, CSV and Markdown");
  cmd->add_option("run", health.run,
                  "Run directory, one of its checkpoint files, or a Hugging Face model folder")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--step", health.step, "Checkpoint step (default: the latest)");
  // Not CLI::ExistingFile: the job names a missing or empty file itself (the app's way too).
  cmd->add_option("--text", health.text,
                  "Evaluate on this text file (one sequence a line) instead of the run's "
                  "validation split");
  cmd->add_option("--out", health.out, "Report folder (default: <run>/analysis/health-step-<S>)");
  cmd->add_option("--sink-epsilon", health.sinkEpsilon,
                  "A head sinks on a token class when its mean mass on the class's keys exceeds "
                  "this (default: the run's log.health_sink_epsilon, 0.3)");
  cmd->add_option("--collapse-nats", health.collapseNats,
                  "Query rows with entropy below this many nats count as collapsed (default: "
                  "the run's log.health_collapse_nats, 0.5)");
  cmd->add_option("--examples", health.examples, "Sequences of the evaluation set to use (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--batch-size", health.batchSize, "Sequences per forward pass")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--plain", health.plain, "Plain progress lines even on a terminal");
  return cmd;
}

CLI::App* addExportModelCommand(CLI::App& cli, ExportModelCommandOptions& em) {
  auto* cmd = cli.add_subcommand(
      "export-model",
      "A run's checkpoint as a Hugging Face folder (BertForMaskedLM, or ModernBertForMaskedLM "
      "for a model.position = rope run; tokenizer.json) that transformers' "
      "AutoModelForMaskedLM and AutoTokenizer load");
  cmd->add_option("run", em.run, "Run directory, or one of its checkpoint files")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--out", em.out, "The folder to write (created; tmp + rename)")->required();
  cmd->add_option("--step", em.step, "Checkpoint step (default: the latest)");
  cmd->add_flag("--force", em.force, "Replace an existing non-empty --out folder");
  return cmd;
}

Subcommands addCommands(CLI::App& cli, CommandLineOptions& options) {
  Subcommands commands;
  commands.smoke = addSmokeCommand(cli, options.smoke);
  commands.train = addTrainCommand(cli, options.train);
  commands.inspect = addInspectCommand(cli, options.inspect);
  commands.analyze = addAnalyzeCommand(cli, options.analyze);
  commands.probeCoref = addProbeCommand(cli, options.probeCoref);
  commands.compare = addCompareCommand(cli, options.compare);
  commands.qkMap = addQkMapCommand(cli, options.qkMap);
  commands.health = addHealthCommand(cli, options.health);
  commands.exportFigures = addExportCommand(cli, options.exportFigures);
  commands.exportModel = addExportModelCommand(cli, options.exportModel);
  return commands;
}

int runChosenCommand(const Subcommands& commands, const CommandLineOptions& options) {
  if (commands.smoke->parsed()) return runSmoke(options.smoke, std::cout, std::cerr);
  if (commands.train->parsed()) return runTrain(options.train);
  if (commands.inspect->parsed()) return runInspect(options.inspect);
  if (commands.analyze->parsed()) return runAnalyze(options.analyze);
  if (commands.probeCoref->parsed()) return runProbeCoref(options.probeCoref);
  if (commands.compare->parsed()) return runCompare(options.compare);
  if (commands.qkMap->parsed()) return runQkMap(options.qkMap);
  if (commands.health->parsed()) return runHealth(options.health);
  if (commands.exportFigures->parsed()) return runExport(options.exportFigures);
  if (commands.exportModel->parsed()) return runExportModel(options.exportModel);
  return 0;
}

}  // namespace attnlab::app
