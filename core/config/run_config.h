#pragma once

// The resolved configuration of one run: plain structs with the documented defaults.
// Parsing, validation, overrides and serialisation live in core/config/config_loader.h;
// every key here is documented in docs/configuration.md (generated from the schema).
// Key paths are the TOML paths, e.g. model.hidden_size -> ModelConfig::hiddenSize.

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::core {

struct RunSection {
  std::string name = "run";  ///< run.name: shown in the GUI and logs
  std::uint64_t seed = 42;   ///< run.seed: one seed for data order, masking, init, dropout
};

struct CorpusConfig {
  /// corpus.source: "wordnet" (glosses from Debian's wordnet-base) or "text" (files/folders).
  std::string source = "wordnet";
  /// corpus.paths: text files or folders (every regular file inside, sorted), for "text".
  std::vector<std::string> paths;
  /// corpus.wordnet_dir: where data.noun, data.verb, data.adj, data.adv live.
  std::string wordnetDir = "/usr/share/wordnet";
  /// corpus.invalid_utf8: "skip" (report file:line and go on) or "reject" (stop).
  std::string invalidUtf8 = "skip";
  /// corpus.max_lines: use at most this many lines (0 = all).
  std::int64_t maxLines = 0;
};

struct TokenizerConfig {
  /// tokenizer.model: an existing SentencePiece .model to load; empty = train one.
  std::string model;
  std::string algorithm = "unigram";  ///< tokenizer.algorithm: "unigram" or "bpe"
  int vocabSize = 8000;               ///< tokenizer.vocab_size
  double characterCoverage = 0.9995;  ///< tokenizer.character_coverage
  /// tokenizer.input_sentence_size: lines sampled for training (0 = all).
  std::int64_t inputSentenceSize = 0;
};

struct DataConfig {
  int sequenceLength = 128;  ///< data.sequence_length: tokens per block incl. <s> and </s>
  /// data.packing: "pack" (concatenate lines into full blocks; RoBERTa FULL-SENTENCES) or
  /// "line" (one line per block, truncated, padded).
  std::string packing = "pack";
  double validationFraction = 0.01;  ///< data.validation_fraction (of lines)
  std::int64_t validationLines = 0;  ///< data.validation_lines: overrides the fraction when > 0
  double maskProbability = 0.15;     ///< data.mask_probability
  double maskTokenShare = 0.8;       ///< data.mask_token_share: selected -> <mask>
  double randomTokenShare = 0.1;     ///< data.random_token_share: selected -> random id
  /// data.cache_dir: where the token store is kept; empty = <run_dir>/cache.
  std::string cacheDir;
};

struct ModelConfig {
  int layers = 4;                  ///< model.layers
  int hiddenSize = 256;            ///< model.hidden_size
  int heads = 4;                   ///< model.heads (must divide hidden_size)
  int ffnSize = 1024;              ///< model.ffn_size
  double dropout = 0.1;            ///< model.dropout (hidden states)
  double attentionDropout = 0.1;   ///< model.attention_dropout (attention probabilities)
  std::string norm = "post";       ///< model.norm: "post" (BERT/RoBERTa) or "pre" (GPT-2)
  bool positionEmbeddings = true;  ///< model.position_embeddings: learned absolute positions
  int maxPositions = 512;          ///< model.max_positions (>= data.sequence_length)
  double initStd = 0.02;           ///< model.init_std: normal init of weights
  double layerNormEps = 1e-12;     ///< model.layer_norm_eps
};

struct OptimizerConfig {
  double learningRate = 5e-4;  ///< optimizer.learning_rate (peak)
  double beta1 = 0.9;          ///< optimizer.beta1
  double beta2 = 0.98;         ///< optimizer.beta2 (RoBERTa)
  double eps = 1e-6;           ///< optimizer.eps
  double weightDecay = 0.01;   ///< optimizer.weight_decay (not on biases or LayerNorm)
  double clipNorm = 1.0;       ///< optimizer.clip_norm: global gradient norm (0 = off)
};

struct ScheduleConfig {
  std::int64_t steps = 2000;       ///< schedule.steps: optimiser steps in total
  std::int64_t warmupSteps = 100;  ///< schedule.warmup_steps: linear warm-up from 0
  std::string decay = "linear";    ///< schedule.decay: "linear" (to 0 at the end) or "constant"
};

struct TrainConfig {
  int batchSize = 32;                  ///< train.batch_size: sequences per micro-batch
  int gradientAccumulation = 1;        ///< train.gradient_accumulation: micro-batches per step
  std::int64_t evalEvery = 200;        ///< train.eval_every: steps between evaluations (0 = off)
  std::int64_t evalBatches = 20;       ///< train.eval_batches: validation batches per evaluation
  std::int64_t checkpointEvery = 500;  ///< train.checkpoint_every (0 = only at the end)
  int keepLast = 2;                    ///< train.keep_last: checkpoints kept besides the best
  bool keepBest = true;                ///< train.keep_best: keep the best by validation loss
  std::int64_t logEvery = 10;          ///< train.log_every: steps between logged scalars
  std::string device = "auto";         ///< train.device: "cpu", "cuda" or "auto"
  int threads = 0;                     ///< train.threads: intra-op threads (0 = cores)
};

struct LogConfig {
  double flushSeconds = 1.0;  ///< log.flush_seconds: run-log flush cadence
};

struct RunConfig {
  RunSection run;
  CorpusConfig corpus;
  TokenizerConfig tokenizer;
  DataConfig data;
  ModelConfig model;
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  TrainConfig train;
  LogConfig log;
};

}  // namespace attnlab::core
