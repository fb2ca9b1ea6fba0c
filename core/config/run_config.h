#pragma once

// The resolved configuration of one run: plain structs with the documented defaults.
// Parsing, validation, overrides and serialisation live in core/config/config_loader.h;
// every key here is documented in docs/configuration.md (generated from the schema).
// Key paths are the TOML paths, e.g. model.hidden_size -> ModelConfig::hiddenSize.

#include "core/config/config_choices.h"
#include "core/config/device_setting.h"

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
  CorpusSource source = CorpusSource::Wordnet;
  /// corpus.paths: text or JSON-lines files (plain, .gz, .zst) or folders (every regular file
  /// inside, sorted), for "text".
  std::vector<std::string> paths;
  /// corpus.wordnet_dir: where data.noun, data.verb, data.adj, data.adv live.
  std::string wordnetDir = "/usr/share/wordnet";
  /// corpus.invalid_utf8: "skip" (report file:line and go on) or "reject" (stop).
  InvalidUtf8Policy invalidUtf8 = InvalidUtf8Policy::Skip;
  /// corpus.format: "auto" (.jsonl/.ndjson are JSON lines), "text" or "jsonl".
  CorpusFormat format = CorpusFormat::Auto;
  /// corpus.text_field: the field of a JSON-lines record that holds its text.
  std::string textField = "text";
  /// corpus.max_lines: use at most this many lines (0 = all).
  std::int64_t maxLines = 0;
};

struct TokenizerConfig {
  /// tokenizer.model: an existing SentencePiece .model to load; empty = train one.
  std::string model;
  TokenizerAlgorithm algorithm = TokenizerAlgorithm::Unigram;  ///< tokenizer.algorithm
  int vocabSize = 8000;                                        ///< tokenizer.vocab_size
  double characterCoverage = 0.9995;                           ///< tokenizer.character_coverage
  /// tokenizer.input_sentence_size: lines sampled for training (0 = all).
  std::int64_t inputSentenceSize = 0;
};

struct DataConfig {
  int sequenceLength = 128;  ///< data.sequence_length: tokens per block incl. <s> and </s>
  /// data.packing: "pack" (concatenate lines into full blocks; RoBERTa FULL-SENTENCES) or
  /// "line" (one line per block, truncated, padded).
  Packing packing = Packing::Pack;
  double validationFraction = 0.01;  ///< data.validation_fraction (of lines)
  std::int64_t validationLines = 0;  ///< data.validation_lines: overrides the fraction when > 0
  double maskProbability = 0.15;     ///< data.mask_probability
  double maskTokenShare = 0.8;       ///< data.mask_token_share: selected -> <mask>
  double randomTokenShare = 0.1;     ///< data.random_token_share: selected -> random id
  /// data.cache_dir: where the token store is kept; empty = <run_dir>/cache.
  std::string cacheDir;
  /// data.shard_mb: MB of corpus text per token-store shard.
  double shardMb = 16.0;
};

struct ModelConfig {
  int layers = 4;                            ///< model.layers
  int hiddenSize = 256;                      ///< model.hidden_size
  int heads = 4;                             ///< model.heads (must divide hidden_size)
  int ffnSize = 1024;                        ///< model.ffn_size
  double dropout = 0.1;                      ///< model.dropout (hidden states)
  double attentionDropout = 0.1;             ///< model.attention_dropout (attention probabilities)
  NormPlacement norm = NormPlacement::Post;  ///< model.norm: post (BERT/RoBERTa) or pre (GPT-2)
  bool positionEmbeddings = true;  ///< model.position_embeddings: learned absolute positions
  /// model.position: `learned` (the table above, when on) or `rope` (rotary q and k).
  PositionEncoding position = PositionEncoding::Learned;
  double ropeTheta = 10000.0;       ///< model.rope_theta: RoPE base of global layers
  double ropeThetaLocal = 10000.0;  ///< model.rope_theta_local: RoPE base of windowed layers
  /// model.attention_window: tokens a windowed layer's query sees, itself in the middle
  /// (ModernBERT's local_attention: keys at most window / 2 positions away); 0 = every layer
  /// global.
  int attentionWindow = 0;
  /// model.global_every: with a window, layer L attends globally when L % global_every == 0.
  int globalEvery = 3;
  FeedForward feedForward = FeedForward::Gelu;  ///< model.feed_forward: gelu | geglu
  /// model.bias: biases in every linear layer and LayerNorm (the MLM decoder's bias stays).
  bool bias = true;
  /// model.first_attention_norm: Pre-LN's LayerNorm on layer 0's attention input (ModernBERT
  /// leaves it out: the embeddings are normalised already).
  bool firstAttentionNorm = true;
  int maxPositions = 512;       ///< model.max_positions (>= data.sequence_length)
  double initStd = 0.02;        ///< model.init_std: normal init of weights
  double layerNormEps = 1e-12;  ///< model.layer_norm_eps
  /// model.fused_attention: LibTorch 2.x's fused attention kernel in layers whose mechanisms
  /// neither read nor change the probabilities (docs/variants.md, "Fused attention").
  bool fusedAttention = true;
  /// model.init_from: a Hugging Face BERT/RoBERTa folder (docs/pretrained.md) whose weights
  /// start the run; its shapes replace the ones above and its tokenizer replaces training
  /// one. Empty: random initialisation.
  std::string initFrom;
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
  LearningRateDecay decay =
      LearningRateDecay::Linear;  ///< schedule.decay: linear (to 0) | constant
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
  DeviceSetting device;                ///< train.device: cpu, cuda, cuda:N or auto
  int threads = 0;                     ///< train.threads: intra-op threads (0 = cores)
  Precision precision = Precision::Float32;  ///< train.precision: float32 | tf32 | bf16 | fp16
};

struct LogConfig {
  double flushSeconds = 0.25;  ///< log.flush_seconds: run-log flush cadence (bounds live latency)
  /// log.snapshot_sentences: probe texts whose attention is snapshotted; empty = draw
  /// log.snapshot_sequences blocks from the validation split with run.seed.
  std::vector<std::string> snapshotSentences;
  int snapshotSequences = 2;       ///< log.snapshot_sequences (when no sentences are given)
  bool snapshotLogSpaced = true;   ///< log.snapshot_log_spaced: steps 1, 2, 4, 8, ...
  std::int64_t snapshotEvery = 0;  ///< log.snapshot_every: also every N steps (0 = off)
  bool snapshotScores = true;      ///< log.snapshot_scores: also raw/residual scores, ASA masks
  /// log.health: the attention-health stream (sinks, entropy, S_max, spectral norms,
  /// massive activations, rank collapse) of the probe batch (core/health).
  bool health = true;
  std::int64_t healthEvery = 0;     ///< log.health_every: every N steps (0 = every train.log_every)
  double healthSinkEpsilon = 0.3;   ///< log.health_sink_epsilon: Gu et al.'s sink threshold
  double healthCollapseNats = 0.5;  ///< log.health_collapse_nats: a collapsed row's entropy
};

/// Attention guidance (Deshpande & Narasimhan 2020).
struct GuidanceConfig {
  bool enabled = false;  ///< attention.guidance.enabled
  /// attention.guidance.head_fraction: lambda, the share of each guided layer's heads that
  /// are guided: one [Next], one [Prev], the rest [First] (the paper's default split).
  double headFraction = 0.5;
  /// attention.guidance.heads: explicit pattern per head (next, prev, first, delim,
  /// period, none); overrides head_fraction when non-empty.
  std::vector<GuidancePattern> heads;
  std::string layers = "all";  ///< attention.guidance.layers: "all" or "0,1,..."
  GuidanceLossForm loss =
      GuidanceLossForm::Frobenius;  ///< attention.guidance.loss: frobenius (paper) | mean (code)
  double weight = 1.0;              ///< attention.guidance.weight: alpha_0
  GuidanceSchedule schedule =
      GuidanceSchedule::Linear;    ///< attention.guidance.schedule: linear (paper) | hold (code)
  std::int64_t holdSteps = 20000;  ///< attention.guidance.hold_steps: for schedule = hold
  /// attention.guidance.edge_rows: uniform (paper) | zero (code)
  GuidanceEdgeRows edgeRows = GuidanceEdgeRows::Uniform;
};

/// Direct position interactions (Dufter et al. 2020).
struct PositionInteractionConfig {
  PositionMode mode =
      PositionMode::None;  ///< attention.position.mode: none | absolute | relative | both
  /// attention.position.relative: directional (paper: a_{i-j}) | symmetric (code: |i-j|)
  RelativeBias relative = RelativeBias::Directional;
  PositionLayers layers = PositionLayers::First;  ///< attention.position.layers: first | all
};

/// Adversarial self-attention (Wu et al. 2023).
struct AsaConfig {
  bool enabled = false;                      ///< attention.asa.enabled
  AsaBinarize binarize = AsaBinarize::Step;  ///< attention.asa.binarize: step (code) | gumbel
  double gumbelTemperature = 1.0;            ///< attention.asa.gumbel_temperature
  /// attention.asa.tau: mask-penalty weight; 0.1 is the paper's pre-training value (0.3 for
  /// fine-tuning; the official fine-tuning code defaults to 0.5, squared)
  double tau = 0.1;
  AsaPenalty penalty =
      AsaPenalty::Tau;  ///< attention.asa.penalty: tau (paper) | tau_squared (code)
  /// attention.asa.kl: forward KL(clean||adv) (paper) | symmetric (code)
  AsaKl kl = AsaKl::Forward;
  /// attention.asa.kl_reduction: the token KL as a mean over the masked-LM positions
  /// (masked_mean) | summed over every real position and class, divided by the batch size
  /// (batchmean: the official code's KLDivLoss(reduction="batchmean") on [B, T, C] logits)
  AsaKlReduction klReduction = AsaKlReduction::MaskedMean;
};

/// Gaussian blurring (SesameBERT).
struct BlurConfig {
  BlurTarget target = BlurTarget::None;  ///< attention.blur.target: none | context (code) | values
  int window = 3;                        ///< attention.blur.window: odd kernel size k
  double sigma = 0.3;                    ///< attention.blur.sigma
};

/// Clipped softmax (Bondarenko et al. 2023): clip((zeta - gamma) softmax + gamma, 0, 1).
struct ClippedSoftmaxConfig {
  double zeta = 1.0;      ///< attention.clipped.zeta (>= 1; the paper's BERT runs: 1)
  double gamma = -0.025;  ///< attention.clipped.gamma (<= 0; the paper's BERT runs: -0.025)
};

/// Squeeze-and-Excitation over the encoder layers (SesameBERT).
struct SqueezeExcitationConfig {
  bool enabled = false;  ///< attention.squeeze.enabled
  int ratio = 3;         ///< attention.squeeze.ratio: r, hidden units L / r
  /// attention.squeeze.combine: weighted_average (paper) | scaled_last (code)
  SqueezeCombine combine = SqueezeCombine::WeightedAverage;
  double biasInit = 0.8;  ///< attention.squeeze.bias_init: excitation biases (code: 0.8)
};

/// The attention mechanisms; all off by default (a plain BERT/RoBERTa).
struct AttentionConfig {
  GuidanceConfig guidance;
  PositionInteractionConfig position;
  bool temperature = false;  ///< attention.temperature: learnable tau_q, tau_k, tau_v per head
  ConvAttention conv =
      ConvAttention::None;  ///< attention.conv: none | 1d | 2d (on the softmax output)
  ResidualScores residual =
      ResidualScores::None;  ///< attention.residual: none | sum | mean (RealFormer)
  /// attention.output_gate: none | head | element: sigmoid(X W + b) on each head's output
  /// before W_O (gated attention, Qiu et al. 2025)
  OutputGate outputGate = OutputGate::None;
  /// attention.qk_norm: none | layer | rms: LayerNorm or RMSNorm over each head's q and k
  /// (QK-norm, Dehghani et al. 2023)
  QkNorm qkNorm = QkNorm::None;
  /// attention.normalizer: softmax | softmax1 | softpick | sigmoid | clipped
  Normalizer normalizer = Normalizer::Softmax;
  /// attention.sink_logit: learned | zero, softmax1's logit in the denominator
  SinkLogit sinkLogit = SinkLogit::Learned;
  ClippedSoftmaxConfig clipped;
  /// attention.differential: (softmax(Q1 K1^T) - lambda softmax(Q2 K2^T)) V (Ye et al. 2024)
  bool differential = false;
  AsaConfig asa;
  BlurConfig blur;
  SqueezeExcitationConfig squeeze;
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
  AttentionConfig attention;
};

}  // namespace attnlab::core
