#include "core/config/config_schema.h"

#include <cstdlib>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

namespace attnlab::core {

namespace {

std::string formatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  // std::to_chars without a precision gives the shortest text that reads back exactly.
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string text(buf, res.ptr);
  // "1e-06" -> "1e-6": same value, reads better in the reference and in run logs.
  const auto e = text.find('e');
  if (e != std::string::npos) {
    std::string mantissa = text.substr(0, e);
    std::string exponent = text.substr(e + 1);
    std::string sign;
    if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) {
      if (exponent[0] == '-') sign = "-";
      exponent.erase(0, 1);
    }
    while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
    return mantissa + "e" + sign + exponent;
  }
  // TOML needs a fraction or an exponent to read a float as a float.
  if (text.find('.') == std::string::npos) text += ".0";
  return text;
}

// Bounds in messages and the reference: "1" rather than "1.0".
std::string formatBound(double v) {
  if (std::abs(v) < 1e15 && v == std::floor(v)) {
    return std::to_string(static_cast<long long>(v));
  }
  return formatDouble(v);
}

std::string quoteToml(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04X", c);
          out += esc;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// The numeric value of an integer or float, for bounds shared by both kinds of key.
bool numericValue(const ConfigValue& v, double& out) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    out = static_cast<double>(*i);
    return true;
  }
  if (const auto* d = std::get_if<double>(&v)) {
    out = *d;
    return true;
  }
  return false;
}

std::string joinChoices(const std::vector<std::string>& choices, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (i) out += sep;
    out += choices[i];
  }
  return out;
}

/// train.device: a string (`cuda:N` is not a fixed choice) read into a DeviceSetting.
ConfigKey deviceKey() {
  ConfigKey key;
  key.path = "train.device";
  key.type = ConfigType::String;
  key.meaning =
      "`cpu`, `cuda` (each process its own GPU, LOCAL_RANK), `cuda:N` (GPU N; one process per "
      "machine), or `auto` (CUDA when available)";
  key.constraint.text = "`cpu`, `cuda`, `cuda:N` or `auto`";
  key.constraint.check = [](const ConfigValue& v) -> std::string {
    const auto* s = std::get_if<std::string>(&v);
    if (!s || parseDeviceSetting(*s)) return {};
    return "must be one of cpu, cuda, cuda:N (N a GPU index), auto; got " + quoteToml(*s);
  };
  key.get = [](const RunConfig& c) -> ConfigValue { return deviceSettingName(c.train.device); };
  key.set = [](RunConfig& c, const ConfigValue& v) {
    c.train.device = *parseDeviceSetting(std::get<std::string>(v));  // checked above
  };
  return detail::finishConfigKey(std::move(key), {});
}

// Declarative table: one entry per key; exempt from the 80-line function rule.
std::vector<ConfigKey> buildSchema() {
  // One entry per key. The accessor binds the RunConfig member; the default comes from it.
  // Keep the order of run_config.h: it is the order of the reference and of toToml().
  return {
      // [run]
      configKey(
          "run.name", [](auto& c) -> auto& { return c.run.name; },
          "name shown in the GUI, the logs and the run directory", nonEmpty()),
      configKey(
          "run.seed", [](auto& c) -> auto& { return c.run.seed; },
          "one seed for data order, masking, initialisation and dropout", atLeast(0)),

      // [corpus]
      configKey(
          "corpus.source", [](auto& c) -> auto& { return c.corpus.source; },
          "`wordnet`: the glosses of Debian's wordnet-base; `text`: the files in corpus.paths"),
      configKey(
          "corpus.paths", [](auto& c) -> auto& { return c.corpus.paths; },
          "text or JSON-lines files, plain or .gz/.zst, or folders (every regular file inside, "
          "sorted) for source `text`"),
      configKey(
          "corpus.wordnet_dir", [](auto& c) -> auto& { return c.corpus.wordnetDir; },
          "folder holding data.noun, data.verb, data.adj and data.adv"),
      configKey(
          "corpus.invalid_utf8", [](auto& c) -> auto& { return c.corpus.invalidUtf8; },
          "a line that is not UTF-8 (or a JSON line without usable text): `skip` (report "
          "file:line and go on) or `reject` (stop)"),
      configKey(
          "corpus.format", [](auto& c) -> auto& { return c.corpus.format; },
          "`auto`: files named .jsonl or .ndjson (also .gz, .zst) are JSON lines, others text; "
          "`text`: every file is text; `jsonl`: every file is JSON lines (one object a line)"),
      configKey(
          "corpus.text_field", [](auto& c) -> auto& { return c.corpus.textField; },
          "the field of a JSON-lines record that holds its text (each line of it a corpus line)",
          nonEmpty()),
      configKey(
          "corpus.max_lines", [](auto& c) -> auto& { return c.corpus.maxLines; },
          "use at most this many lines of the corpus (0 = all)", atLeast(0)),

      // [tokenizer]
      configKey(
          "tokenizer.model", [](auto& c) -> auto& { return c.tokenizer.model; },
          "an existing SentencePiece .model to load; empty = train one on the corpus"),
      configKey(
          "tokenizer.algorithm", [](auto& c) -> auto& { return c.tokenizer.algorithm; },
          "SentencePiece model type when training"),
      configKey(
          "tokenizer.vocab_size", [](auto& c) -> auto& { return c.tokenizer.vocabSize; },
          "pieces in the vocabulary, the 5 special pieces included", atLeast(8)),
      configKey(
          "tokenizer.character_coverage",
          [](auto& c) -> auto& { return c.tokenizer.characterCoverage; },
          "share of characters the vocabulary must cover; the rest map to `<unk>`",
          inRange(0, 1, true, false)),
      configKey(
          "tokenizer.input_sentence_size",
          [](auto& c) -> auto& { return c.tokenizer.inputSentenceSize; },
          "lines sampled to train the tokenizer (0 = all)", atLeast(0)),

      // [data]
      configKey(
          "data.sequence_length", [](auto& c) -> auto& { return c.data.sequenceLength; },
          "tokens per block, `<s>` and `</s>` included (<= model.max_positions)", atLeast(8)),
      configKey(
          "data.packing", [](auto& c) -> auto& { return c.data.packing; },
          "`pack`: concatenate lines into full blocks (RoBERTa FULL-SENTENCES); `line`: one "
          "line per block, truncated and padded"),
      configKey(
          "data.validation_fraction", [](auto& c) -> auto& { return c.data.validationFraction; },
          "share of lines held out for validation", inRange(0, 1, false, true)),
      configKey(
          "data.validation_lines", [](auto& c) -> auto& { return c.data.validationLines; },
          "lines held out for validation; overrides the fraction when > 0", atLeast(0)),
      configKey(
          "data.mask_probability", [](auto& c) -> auto& { return c.data.maskProbability; },
          "share of tokens selected as masked-LM targets", inRange(0, 1, true, false)),
      configKey(
          "data.mask_token_share", [](auto& c) -> auto& { return c.data.maskTokenShare; },
          "share of selected tokens replaced by `<mask>`", inRange(0, 1)),
      configKey(
          "data.random_token_share", [](auto& c) -> auto& { return c.data.randomTokenShare; },
          "share of selected tokens replaced by a random piece (the rest stay unchanged)",
          inRange(0, 1)),
      configKey(
          "data.cache_dir", [](auto& c) -> auto& { return c.data.cacheDir; },
          "where the encoded token store is kept; empty = `<run_dir>/cache`"),
      configKey(
          "data.shard_mb", [](auto& c) -> auto& { return c.data.shardMb; },
          "corpus text per token-store shard, in MB: what each encoding thread holds at once "
          "and what a restart after an interruption redoes at most (docs/data.md)",
          inRange(0.001, 4096)),

      // [model]
      configKey(
          "model.layers", [](auto& c) -> auto& { return c.model.layers; }, "encoder layers",
          atLeast(1)),
      configKey(
          "model.hidden_size", [](auto& c) -> auto& { return c.model.hiddenSize; },
          "width of the hidden states", atLeast(1)),
      configKey(
          "model.heads", [](auto& c) -> auto& { return c.model.heads; },
          "attention heads per layer (must divide model.hidden_size)", atLeast(1)),
      configKey(
          "model.ffn_size", [](auto& c) -> auto& { return c.model.ffnSize; },
          "inner width of the feed-forward block", atLeast(1)),
      configKey(
          "model.dropout", [](auto& c) -> auto& { return c.model.dropout; },
          "dropout on hidden states", inRange(0, 1, false, true)),
      configKey(
          "model.attention_dropout", [](auto& c) -> auto& { return c.model.attentionDropout; },
          "dropout on attention probabilities", inRange(0, 1, false, true)),
      configKey(
          "model.norm", [](auto& c) -> auto& { return c.model.norm; },
          "LayerNorm placement: `post` (BERT, RoBERTa) or `pre` (GPT-2)"),
      configKey(
          "model.position_embeddings", [](auto& c) -> auto& { return c.model.positionEmbeddings; },
          "learned absolute position embeddings"),
      configKey(
          "model.position", [](auto& c) -> auto& { return c.model.position; },
          "`learned`: the position table (model.position_embeddings) added to the "
          "embeddings; `rope`: rotary embeddings turn each head's queries and keys by their "
          "positions (Su et al. 2021; ModernBERT), in every attention path"),
      configKey(
          "model.rope_theta", [](auto& c) -> auto& { return c.model.ropeTheta; },
          "RoPE's base in global layers (ModernBERT: 160000)", greaterThan(1)),
      configKey(
          "model.rope_theta_local", [](auto& c) -> auto& { return c.model.ropeThetaLocal; },
          "RoPE's base in windowed layers (ModernBERT: 10000)", greaterThan(1)),
      configKey(
          "model.attention_window", [](auto& c) -> auto& { return c.model.attentionWindow; },
          "sliding-window attention: a windowed layer's query sees the keys at most "
          "attention_window / 2 positions away, the rest are masked (exactly zero weight); "
          "ModernBERT: 128; 0 = every layer global",
          atLeast(0)),
      configKey(
          "model.global_every", [](auto& c) -> auto& { return c.model.globalEvery; },
          "with a window, layer L attends globally when L % global_every == 0 (ModernBERT: 3)",
          atLeast(1)),
      configKey(
          "model.feed_forward", [](auto& c) -> auto& { return c.model.feedForward; },
          "feed-forward block: `gelu` (BERT) or `geglu`, GELU(x W_in) * (x W_gate) "
          "(ModernBERT: W_in and W_gate are one [2 ffn_size] projection)"),
      configKey(
          "model.bias", [](auto& c) -> auto& { return c.model.bias; },
          "biases in every linear layer and LayerNorm (ModernBERT: false; the MLM decoder's "
          "bias stays)"),
      configKey(
          "model.first_attention_norm", [](auto& c) -> auto& { return c.model.firstAttentionNorm; },
          "with model.norm = pre, LayerNorm on layer 0's attention input (ModernBERT: false, "
          "its embeddings are normalised already)"),
      configKey(
          "model.max_positions", [](auto& c) -> auto& { return c.model.maxPositions; },
          "longest sequence the position embeddings cover", atLeast(1)),
      configKey(
          "model.init_std", [](auto& c) -> auto& { return c.model.initStd; },
          "standard deviation of the normal weight initialisation", greaterThan(0)),
      configKey(
          "model.layer_norm_eps", [](auto& c) -> auto& { return c.model.layerNormEps; },
          "epsilon of every LayerNorm", greaterThan(0)),
      configKey(
          "model.fused_attention", [](auto& c) -> auto& { return c.model.fusedAttention; },
          "compute attention with LibTorch 2.x's fused kernel (scaled_dot_product_attention) "
          "in layers whose mechanisms neither read nor change the probabilities, on steps "
          "that capture none; no effect with LibTorch 1.13"),
      configKey(
          "model.init_from", [](auto& c) -> auto& { return c.model.initFrom; },
          "a Hugging Face BERT or RoBERTa folder (config.json, model.safetensors, its "
          "tokenizer) to start from: its shapes, weights and tokenizer replace model.layers, "
          "hidden_size, heads, ffn_size, max_positions, layer_norm_eps and the tokenizer; "
          "empty = random initialisation"),

      // [optimizer]
      configKey(
          "optimizer.learning_rate", [](auto& c) -> auto& { return c.optimizer.learningRate; },
          "peak learning rate of AdamW", greaterThan(0)),
      configKey(
          "optimizer.beta1", [](auto& c) -> auto& { return c.optimizer.beta1; },
          "AdamW first-moment decay", inRange(0, 1, false, true)),
      configKey(
          "optimizer.beta2", [](auto& c) -> auto& { return c.optimizer.beta2; },
          "AdamW second-moment decay (0.98 as RoBERTa)", inRange(0, 1, false, true)),
      configKey(
          "optimizer.eps", [](auto& c) -> auto& { return c.optimizer.eps; },
          "AdamW denominator epsilon", greaterThan(0)),
      configKey(
          "optimizer.weight_decay", [](auto& c) -> auto& { return c.optimizer.weightDecay; },
          "decoupled weight decay (not on biases or LayerNorm)", atLeast(0)),
      configKey(
          "optimizer.clip_norm", [](auto& c) -> auto& { return c.optimizer.clipNorm; },
          "clip the global gradient norm to this (0 = off)", atLeast(0)),

      // [schedule]
      configKey(
          "schedule.steps", [](auto& c) -> auto& { return c.schedule.steps; },
          "optimiser steps in total", atLeast(1)),
      configKey(
          "schedule.warmup_steps", [](auto& c) -> auto& { return c.schedule.warmupSteps; },
          "linear warm-up from 0 to the peak rate (<= schedule.steps)", atLeast(0)),
      configKey(
          "schedule.decay", [](auto& c) -> auto& { return c.schedule.decay; },
          "after warm-up: `linear` (to 0 at the last step) or `constant`"),

      // [train]
      configKey(
          "train.batch_size", [](auto& c) -> auto& { return c.train.batchSize; },
          "sequences per micro-batch", atLeast(1)),
      configKey(
          "train.gradient_accumulation",
          [](auto& c) -> auto& { return c.train.gradientAccumulation; },
          "micro-batches per optimiser step; the step's MLM loss is normalised by all its "
          "micro-batches' predicted tokens together (so A micro-batches of B equal one of A x "
          "B), the mechanisms' terms are averaged",
          atLeast(1)),
      configKey(
          "train.eval_every", [](auto& c) -> auto& { return c.train.evalEvery; },
          "steps between evaluations on the validation split (0 = off)", atLeast(0)),
      configKey(
          "train.eval_batches", [](auto& c) -> auto& { return c.train.evalBatches; },
          "validation batches per evaluation", atLeast(1)),
      configKey(
          "train.checkpoint_every", [](auto& c) -> auto& { return c.train.checkpointEvery; },
          "steps between checkpoints (0 = only at the end)", atLeast(0)),
      configKey(
          "train.keep_last", [](auto& c) -> auto& { return c.train.keepLast; },
          "most recent checkpoints kept besides the best", atLeast(0)),
      configKey(
          "train.keep_best", [](auto& c) -> auto& { return c.train.keepBest; },
          "also keep the checkpoint with the lowest validation loss"),
      configKey(
          "train.log_every", [](auto& c) -> auto& { return c.train.logEvery; },
          "steps between logged scalars (one host synchronisation each)", atLeast(1)),
      deviceKey(),
      configKey(
          "train.threads", [](auto& c) -> auto& { return c.train.threads; },
          "intra-op CPU threads (0 = one per core)", atLeast(0)),
      configKey(
          "train.precision", [](auto& c) -> auto& { return c.train.precision; },
          "arithmetic of a step: `float32`; `tf32` (TF32 matrix products on NVIDIA GPUs of "
          "compute capability 8.0 and later; float32 elsewhere); `bf16` (bfloat16 autocast, "
          "GPU or CPU); `fp16` (float16 autocast with a dynamic loss scale, GPU only). Weights "
          "and optimiser state stay float32"),

      // [log]
      configKey(
          "log.flush_seconds", [](auto& c) -> auto& { return c.log.flushSeconds; },
          "how often the run log is flushed to disk", greaterThan(0)),
      configKey(
          "log.snapshot_sentences", [](auto& c) -> auto& { return c.log.snapshotSentences; },
          "probe texts whose attention is snapshotted (empty: drawn from validation)"),
      configKey(
          "log.snapshot_sequences", [](auto& c) -> auto& { return c.log.snapshotSequences; },
          "validation blocks in the probe batch when no sentences are given", atLeast(1)),
      configKey(
          "log.snapshot_log_spaced", [](auto& c) -> auto& { return c.log.snapshotLogSpaced; },
          "snapshot attention at steps 1, 2, 4, 8, ..."),
      configKey(
          "log.snapshot_every", [](auto& c) -> auto& { return c.log.snapshotEvery; },
          "also snapshot every N steps (0 = off)", atLeast(0)),
      configKey(
          "log.snapshot_scores", [](auto& c) -> auto& { return c.log.snapshotScores; },
          "snapshots include pre-softmax (raw or residual) scores and ASA masks"),
      configKey(
          "log.health", [](auto& c) -> auto& { return c.log.health; },
          "log attention health of the probe batch: sinks, entropy, S_max, spectral norms, "
          "massive activations, rank collapse"),
      configKey(
          "log.health_every", [](auto& c) -> auto& { return c.log.healthEvery; },
          "attention health every N steps (0 = at every train.log_every step)", atLeast(0)),
      configKey(
          "log.health_sink_epsilon", [](auto& c) -> auto& { return c.log.healthSinkEpsilon; },
          "a head is a sink for a token class when a key of it receives more than this mass "
          "(Gu et al. 2025)",
          inRange(0, 1, true, true)),
      configKey(
          "log.health_collapse_nats", [](auto& c) -> auto& { return c.log.healthCollapseNats; },
          "attention rows with entropy below this (nats) count as collapsed", atLeast(0.0)),

      // [attention.guidance]: Deshpande & Narasimhan 2020
      configKey(
          "attention.guidance.enabled",
          [](auto& c) -> auto& { return c.attention.guidance.enabled; },
          "add the attention-guidance loss"),
      configKey(
          "attention.guidance.head_fraction",
          [](auto& c) -> auto& { return c.attention.guidance.headFraction; },
          "lambda: share of heads guided (one [Next], one [Prev], the rest [First])",
          inRange(0, 1, true, false)),
      configKey(
          "attention.guidance.heads", [](auto& c) -> auto& { return c.attention.guidance.heads; },
          "explicit pattern per head: next, prev, first, delim, period or none (overrides "
          "head_fraction)"),
      configKey(
          "attention.guidance.layers", [](auto& c) -> auto& { return c.attention.guidance.layers; },
          "guided layers: `all` or 0-based indices such as `0,1`"),
      configKey(
          "attention.guidance.loss", [](auto& c) -> auto& { return c.attention.guidance.loss; },
          "`frobenius`: squared Frobenius norm per head (paper); `mean`: MSE mean (code)"),
      configKey(
          "attention.guidance.weight", [](auto& c) -> auto& { return c.attention.guidance.weight; },
          "alpha_0, the weight of the guidance loss at step 0", atLeast(0)),
      configKey(
          "attention.guidance.schedule",
          [](auto& c) -> auto& { return c.attention.guidance.schedule; },
          "`linear`: alpha decays linearly to 0 (paper); `hold`: constant for hold_steps, then "
          "linear (code)"),
      configKey(
          "attention.guidance.hold_steps",
          [](auto& c) -> auto& { return c.attention.guidance.holdSteps; },
          "steps alpha is held before decaying (schedule = hold)", atLeast(0)),
      configKey(
          "attention.guidance.edge_rows",
          [](auto& c) -> auto& { return c.attention.guidance.edgeRows; },
          "target of [Next]/[Prev] rows with no neighbour: `uniform` (paper) or `zero` (code)"),

      // [attention.position]: Dufter et al. 2020
      configKey(
          "attention.position.mode", [](auto& c) -> auto& { return c.attention.position.mode; },
          "direct position interactions added to the logits: none, absolute (T x T per head), "
          "relative, both"),
      configKey(
          "attention.position.relative",
          [](auto& c) -> auto& { return c.attention.position.relative; },
          "`directional`: a_{i-j} (paper); `symmetric`: depends on |i-j| (official code)"),
      configKey(
          "attention.position.layers", [](auto& c) -> auto& { return c.attention.position.layers; },
          "layers with position interactions: `first` (default) or `all`"),
      configKey(
          "attention.temperature", [](auto& c) -> auto& { return c.attention.temperature; },
          "learnable temperature: scalars on W_q, W_k, W_v per head, initialised to 1"),
      configKey(
          "attention.conv", [](auto& c) -> auto& { return c.attention.conv; },
          "convolved attention on the softmax output: none, 1d (T filters of width 3 per head), "
          "2d (one 3x3 filter per head)"),

      // RealFormer
      configKey(
          "attention.residual", [](auto& c) -> auto& { return c.attention.residual; },
          "residual attention scores: none, sum (running sum), mean (running mean)"),

      // Gated attention (Qiu et al. 2025) and QK-norm (Dehghani et al. 2023)
      configKey(
          "attention.output_gate", [](auto& c) -> auto& { return c.attention.outputGate; },
          "gated attention: each head's output times sigmoid(X W + b) of the block's input X, "
          "before the output projection; `head` (one gate per head) or `element` (one per "
          "channel); `none` = off"),
      configKey(
          "attention.qk_norm", [](auto& c) -> auto& { return c.attention.qkNorm; },
          "QK-norm: `layer` (LayerNorm) or `rms` (RMSNorm) over each head's queries and keys, "
          "learned scale per head dimension shared by the heads, before the scores and the "
          "learnable temperature; `none` = off"),

      // Softmax alternatives and differential attention (docs/variants.md)
      configKey(
          "attention.normalizer", [](auto& c) -> auto& { return c.attention.normalizer; },
          "what turns each row of scores into weights: `softmax`; `softmax1` (an extra logit "
          "per head in the denominator, attention.sink_logit); `softpick` (ReLU(e^x - 1) / "
          "sum |e^x - 1|); `sigmoid` (sigmoid(x - log n), n real keys); `clipped` "
          "(clip((zeta - gamma) softmax + gamma, 0, 1))"),
      configKey(
          "attention.sink_logit", [](auto& c) -> auto& { return c.attention.sinkLogit; },
          "softmax1's logit in the denominator: `learned` per head, starting at 0 (gpt-oss's "
          "sinks), or `zero` (softmax off by one)"),
      configKey(
          "attention.clipped.zeta", [](auto& c) -> auto& { return c.attention.clipped.zeta; },
          "clipped softmax's stretch zeta (normalizer = clipped)", atLeast(1)),
      configKey(
          "attention.clipped.gamma", [](auto& c) -> auto& { return c.attention.clipped.gamma; },
          "clipped softmax's shift gamma (normalizer = clipped); below 0 lets weights reach "
          "exactly 0",
          inRange(-1, 0, false, false)),
      configKey(
          "attention.differential", [](auto& c) -> auto& { return c.attention.differential; },
          "differential attention: each head's q and k split in halves, (softmax(Q1 K1^T) - "
          "lambda softmax(Q2 K2^T)) V, then a per-head RMSNorm and (1 - lambda_init)"),

      // [attention.asa]: adversarial self-attention
      configKey(
          "attention.asa.enabled", [](auto& c) -> auto& { return c.attention.asa.enabled; },
          "adversarial self-attention: a clean and an adversarial pass per step"),
      configKey(
          "attention.asa.binarize", [](auto& c) -> auto& { return c.attention.asa.binarize; },
          "mask binarisation: `step` (S > 0, straight-through; code) or `gumbel` (with noise)"),
      configKey(
          "attention.asa.gumbel_temperature",
          [](auto& c) -> auto& { return c.attention.asa.gumbelTemperature; },
          "temperature of the Gumbel-sigmoid (binarize = gumbel)", greaterThan(0)),
      configKey(
          "attention.asa.tau", [](auto& c) -> auto& { return c.attention.asa.tau; },
          "weight of the mask penalty (0.1: the paper's pre-training value)", atLeast(0)),
      configKey(
          "attention.asa.penalty", [](auto& c) -> auto& { return c.attention.asa.penalty; },
          "penalty weight `tau` (paper) or `tau_squared` (code)"),
      configKey(
          "attention.asa.kl", [](auto& c) -> auto& { return c.attention.asa.kl; },
          "`forward`: KL(clean || adversarial) (paper); `symmetric`: both directions halved "
          "(code)"),
      configKey(
          "attention.asa.kl_reduction",
          [](auto& c) -> auto& { return c.attention.asa.klReduction; },
          "token KL: `masked_mean`, the mean over the masked-LM positions; `batchmean`, summed "
          "over every real position and the vocabulary, divided by the batch size (code)"),

      // [attention.blur] and [attention.squeeze]: SesameBERT
      configKey(
          "attention.blur.target", [](auto& c) -> auto& { return c.attention.blur.target; },
          "Gaussian blur along the sequence on the attention `context` (default) or the "
          "`values`; `none` = off"),
      configKey(
          "attention.blur.window", [](auto& c) -> auto& { return c.attention.blur.window; },
          "odd kernel size k", atLeast(1)),
      configKey(
          "attention.blur.sigma", [](auto& c) -> auto& { return c.attention.blur.sigma; },
          "standard deviation of the kernel (in tokens)", greaterThan(0)),
      configKey(
          "attention.squeeze.enabled", [](auto& c) -> auto& { return c.attention.squeeze.enabled; },
          "Squeeze-and-Excitation over the encoder layers' outputs"),
      configKey(
          "attention.squeeze.ratio", [](auto& c) -> auto& { return c.attention.squeeze.ratio; },
          "reduction ratio r: the excitation has max(1, L / r) hidden units", atLeast(1)),
      configKey(
          "attention.squeeze.combine", [](auto& c) -> auto& { return c.attention.squeeze.combine; },
          "`weighted_average`: sum s_k U_k / sum s_k (paper); `scaled_last`: s_L U_L (code)"),
      configKey(
          "attention.squeeze.bias_init",
          [](auto& c) -> auto& { return c.attention.squeeze.biasInit; },
          "initial excitation biases (the official code uses 0.8)"),
  };
}

/// attention.guidance.layers: `all`, or comma-separated indices of layers the model has.
std::string checkGuidedLayers(const RunConfig& c) {
  const std::string& spec = c.attention.guidance.layers;
  if (spec == "all") return {};
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = spec.find(',', start);
    const std::string item =
        spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    const long layer = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || end == item.c_str() || *end != '\0') {
      return "expected `all` or comma-separated layer indices, got '" + spec + "'";
    }
    if (layer < 0 || layer >= c.model.layers) {
      return "layer " + item + " does not exist (model.layers = " + std::to_string(c.model.layers) +
             ")";
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {};
}

// Declarative table: one entry per rule (its keys, what it says, its check); exempt from the
// 80-line function rule.
std::vector<ConfigRule> buildRules() {
  return {
      {{"attention.position.mode", "model.position_embeddings"},
       "position interactions replace position embeddings",
       [](const RunConfig& c) -> std::string {
         if (c.attention.position.mode != PositionMode::None && c.model.positionEmbeddings) {
           return "attention.position.mode = " + choiceText(c.attention.position.mode) +
                  " replaces the learned position embeddings; set model.position_embeddings = "
                  "false";
         }
         return {};
       }},
      {{"model.position", "model.position_embeddings"},
       "rotary positions replace the position table",
       [](const RunConfig& c) -> std::string {
         if (c.model.position == PositionEncoding::Rope && c.model.positionEmbeddings) {
           return "= rope turns queries and keys by their positions instead of adding a "
                  "learned table; set model.position_embeddings = false";
         }
         return {};
       }},
      {{"model.position", "model.hidden_size", "model.heads"},
       "RoPE turns pairs of a head's dimensions",
       [](const RunConfig& c) -> std::string {
         if (c.model.position != PositionEncoding::Rope || c.model.heads <= 0) return {};
         const int headSize = c.model.hiddenSize / c.model.heads;
         if (headSize % 2 != 0) {
           return "= rope turns pairs of each head's dimensions; the head size "
                  "model.hidden_size / model.heads = " +
                  std::to_string(headSize) + " is odd";
         }
         return {};
       }},
      {{"model.position", "attention.differential"},
       "differential attention's halves would share RoPE's pairs",
       [](const RunConfig& c) -> std::string {
         if (c.model.position == PositionEncoding::Rope && c.attention.differential) {
           return "= rope turns dimension i of a head with dimension i + d/2; "
                  "attention.differential = true splits each head's q and k into those two "
                  "halves, so each half's scores would lose RoPE's relative form";
         }
         return {};
       }},
      {{"model.attention_window", "attention.conv"},
       "convolved attention would spread weight outside the window",
       [](const RunConfig& c) -> std::string {
         if (c.model.attentionWindow > 0 && c.attention.conv != ConvAttention::None) {
           return "masks every key outside the window (weight exactly 0); attention.conv = " +
                  choiceText(c.attention.conv) +
                  " convolves the whole attention matrix and would move weight there";
         }
         return {};
       }},
      {{"model.first_attention_norm", "model.norm"},
       "first_attention_norm = false is a Pre-LN layout",
       [](const RunConfig& c) -> std::string {
         if (!c.model.firstAttentionNorm && c.model.norm != NormPlacement::Pre) {
           return "= false leaves out layer 0's Pre-LN attention norm; model.norm = post has "
                  "none there to leave out (set model.norm = \"pre\")";
         }
         return {};
       }},
      {{"attention.guidance.heads", "model.heads"},
       "one guidance pattern per head",
       [](const RunConfig& c) -> std::string {
         const auto& heads = c.attention.guidance.heads;
         if (heads.empty()) return {};
         // Each item was checked against the pattern names already (eachOneOf).
         if (static_cast<int>(heads.size()) != c.model.heads) {
           return "lists " + std::to_string(heads.size()) + " patterns but model.heads is " +
                  std::to_string(c.model.heads);
         }
         return {};
       }},
      {{"attention.guidance.layers", "model.layers"}, "guided layers exist", checkGuidedLayers},
      {{"attention.guidance.enabled", "attention.normalizer", "attention.differential"},
       "attention guidance needs probability rows",
       [](const RunConfig& c) -> std::string {
         // The guidance loss compares each row with a target distribution; rows that do not
         // sum to 1 (or are signed) have no distribution to compare.
         if (!c.attention.guidance.enabled) return {};
         if (c.attention.differential) {
           return "compares each row of attention with a target distribution; "
                  "attention.differential = true makes signed rows";
         }
         if (c.attention.normalizer != Normalizer::Softmax) {
           return "compares each row of attention with a target distribution; "
                  "attention.normalizer = " +
                  choiceText(c.attention.normalizer) + " makes rows that do not sum to 1";
         }
         return {};
       }},
      {{"attention.differential", "attention.normalizer"},
       "differential attention is a difference of two softmaxes",
       [](const RunConfig& c) -> std::string {
         if (c.attention.differential && c.attention.normalizer != Normalizer::Softmax) {
           return "is defined on two softmax maps; attention.normalizer = " +
                  choiceText(c.attention.normalizer) + " would change both";
         }
         return {};
       }},
      {{"attention.differential", "attention.residual", "attention.conv"},
       "differential attention has two score maps per head",
       [](const RunConfig& c) -> std::string {
         if (!c.attention.differential) return {};
         if (c.attention.residual != ResidualScores::None) {
           return "has two score maps per head; attention.residual = " +
                  choiceText(c.attention.residual) + " carries one per head";
         }
         if (c.attention.conv != ConvAttention::None) {
           return "makes a signed map; attention.conv = " + choiceText(c.attention.conv) +
                  " convolves a probability map";
         }
         return {};
       }},
      {{"attention.differential", "model.hidden_size", "model.heads"},
       "differential attention splits each head's q and k in halves",
       [](const RunConfig& c) -> std::string {
         if (!c.attention.differential || c.model.heads <= 0) return {};
         const int headSize = c.model.hiddenSize / c.model.heads;
         if (headSize % 2 != 0) {
           return "splits each head's q and k in two halves; the head size model.hidden_size / "
                  "model.heads = " +
                  std::to_string(headSize) + " is odd";
         }
         return {};
       }},
      {{"attention.blur.window"},
       "blur window is odd",
       [](const RunConfig& c) -> std::string {
         if (c.attention.blur.target != BlurTarget::None && c.attention.blur.window % 2 == 0) {
           return "must be odd (a centred kernel), got " + std::to_string(c.attention.blur.window);
         }
         return {};
       }},
      {{"attention.conv", "data.sequence_length"},
       "1-D convolved attention has a fixed length",
       [](const RunConfig& c) -> std::string {
         // The 1-D filters are built for one length (one filter per key position), so every
         // input is padded to data.sequence_length; a longer one could not be processed.
         if (c.attention.conv == ConvAttention::OneD &&
             c.data.sequenceLength > c.model.maxPositions) {
           return "1-D convolved attention builds data.sequence_length filters per head, which "
                  "must not exceed model.max_positions";
         }
         return {};
       }},
      {{"model.heads", "model.hidden_size"},
       "model.heads divides model.hidden_size",
       [](const RunConfig& c) -> std::string {
         if (c.model.initFrom.empty() && c.model.heads > 0 &&
             c.model.hiddenSize % c.model.heads != 0) {
           return std::to_string(c.model.heads) + " heads do not divide model.hidden_size " +
                  std::to_string(c.model.hiddenSize);
         }
         return {};
       }},
      {{"data.sequence_length", "model.max_positions"},
       "data.sequence_length <= model.max_positions",
       [](const RunConfig& c) -> std::string {
         // With model.init_from the positions are the pretrained model's, checked when the
         // run starts (adoptPretrainedShapes), not the configured ones it replaces.
         if (c.model.initFrom.empty() && c.data.sequenceLength > c.model.maxPositions) {
           return std::to_string(c.data.sequenceLength) + " exceeds model.max_positions " +
                  std::to_string(c.model.maxPositions);
         }
         return {};
       }},
      {{"data.mask_token_share", "data.random_token_share"},
       "data.mask_token_share + data.random_token_share <= 1",
       [](const RunConfig& c) -> std::string {
         const double sum = c.data.maskTokenShare + c.data.randomTokenShare;
         if (sum > 1.0) {
           return "plus data.random_token_share must be <= 1, got " + formatBound(sum);
         }
         return {};
       }},
      {{"schedule.warmup_steps", "schedule.steps"},
       "schedule.warmup_steps <= schedule.steps",
       [](const RunConfig& c) -> std::string {
         if (c.schedule.warmupSteps > c.schedule.steps) {
           return std::to_string(c.schedule.warmupSteps) + " exceeds schedule.steps " +
                  std::to_string(c.schedule.steps);
         }
         return {};
       }},
      {{"corpus.paths", "corpus.source"},
       "corpus.source `text` needs a non-empty corpus.paths",
       [](const RunConfig& c) -> std::string {
         if (c.corpus.source == CorpusSource::Text && c.corpus.paths.empty()) {
           return "must name at least one file or folder when corpus.source is \"text\"";
         }
         for (const auto& p : c.corpus.paths) {
           if (p.empty()) return "holds an empty path";
         }
         return {};
       }},
      {{"corpus.wordnet_dir", "corpus.source"},
       "corpus.source `wordnet` needs a non-empty corpus.wordnet_dir",
       [](const RunConfig& c) -> std::string {
         if (c.corpus.source == CorpusSource::Wordnet && c.corpus.wordnetDir.empty()) {
           return "must not be empty when corpus.source is \"wordnet\"";
         }
         return {};
       }},
      {{"train.keep_last", "train.keep_best"},
       "train.keep_last >= 1 or train.keep_best, so a run can be resumed",
       [](const RunConfig& c) -> std::string {
         if (c.train.keepLast == 0 && !c.train.keepBest) {
           return "is 0 and train.keep_best is false, so no checkpoint would be kept";
         }
         return {};
       }},
      {{"train.keep_best", "train.eval_every"},
       "keeping only the best checkpoint (train.keep_last = 0) needs train.eval_every > 0",
       [](const RunConfig& c) -> std::string {
         if (c.train.keepBest && c.train.evalEvery == 0 && c.train.keepLast == 0) {
           return "is the only checkpoint kept but train.eval_every is 0, so there is no "
                  "validation loss to pick it by";
         }
         return {};
       }},
  };
}

}  // namespace

std::string ConfigKey::section() const {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string ConfigKey::name() const {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

const std::vector<ConfigKey>& configSchema() {
  static const std::vector<ConfigKey> schema = buildSchema();
  return schema;
}

const std::vector<ConfigRule>& configRules() {
  static const std::vector<ConfigRule> rules = buildRules();
  return rules;
}

const ConfigKey* findConfigKey(std::string_view path) {
  for (const auto& key : configSchema()) {
    if (key.path == path) return &key;
  }
  return nullptr;
}

const std::vector<std::string>& configSections() {
  static const std::vector<std::string> sections = [] {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& key : configSchema()) {
      const std::string section = key.section();
      // "a.b.c" contributes "a" and "a.b", parents first.
      for (std::size_t dot = section.find('.');; dot = section.find('.', dot + 1)) {
        const std::string prefix = section.substr(0, dot);
        if (!prefix.empty() && seen.insert(prefix).second) out.push_back(prefix);
        if (dot == std::string::npos) break;
      }
    }
    return out;
  }();
  return sections;
}

std::string describeExpected(const ConfigKey& key) {
  switch (key.type) {
    case ConfigType::Integer:
      return "an integer";
    case ConfigType::Float:
      return "a number";
    case ConfigType::Boolean:
      return "a boolean (true or false)";
    case ConfigType::String:
    case ConfigType::Choice:
      return "a string";
    case ConfigType::StringList:
      return "a list of strings";
  }
  return "a value";
}

std::string describeType(const ConfigKey& key) {
  std::string base;
  switch (key.type) {
    case ConfigType::Integer:
      base = "integer";
      break;
    case ConfigType::Float:
      base = "float";
      break;
    case ConfigType::Boolean:
      return "boolean";
    case ConfigType::String:
      base = "string";
      break;
    case ConfigType::Choice: {
      std::vector<std::string> quoted;
      for (const auto& c : key.constraint.choices) quoted.push_back("`" + c + "`");
      return joinChoices(quoted, " \\| ");
    }
    case ConfigType::StringList:
      if (!key.constraint.choices.empty()) {
        std::vector<std::string> quoted;
        for (const auto& c : key.constraint.choices) quoted.push_back("`" + c + "`");
        return "list of " + joinChoices(quoted, " \\| ");
      }
      base = "list of strings";
      break;
  }
  if (!key.constraint.text.empty()) base += " " + key.constraint.text;
  return base;
}

std::string toTomlLiteral(const ConfigValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return formatDouble(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return quoteToml(v);
        } else {
          std::string out = "[";
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i) out += ", ";
            out += quoteToml(v[i]);
          }
          return out + "]";
        }
      },
      value);
}

std::vector<std::string> differingKeys(const RunConfig& a, const RunConfig& b) {
  std::vector<std::string> out;
  for (const auto& key : configSchema()) {
    if (!(key.get(a) == key.get(b))) out.push_back(key.path);
  }
  return out;
}

ConfigConstraint unconstrained() {
  return {};
}

ConfigConstraint atLeast(double lo) {
  return {">= " + formatBound(lo),
          [lo](const ConfigValue& v) -> std::string {
            double x = 0;
            if (numericValue(v, x) && !(x >= lo)) {
              return "must be >= " + formatBound(lo) + ", got " + toTomlLiteral(v);
            }
            return {};
          },
          {}};
}

ConfigConstraint greaterThan(double lo) {
  return {"> " + formatBound(lo),
          [lo](const ConfigValue& v) -> std::string {
            double x = 0;
            if (numericValue(v, x) && !(x > lo)) {
              return "must be > " + formatBound(lo) + ", got " + toTomlLiteral(v);
            }
            return {};
          },
          {}};
}

ConfigConstraint inRange(double lo, double hi, bool loOpen, bool hiOpen) {
  const std::string text = std::string(loOpen ? "(" : "[") + formatBound(lo) + ", " +
                           formatBound(hi) + (hiOpen ? ")" : "]");
  return {"in " + text,
          [=](const ConfigValue& v) -> std::string {
            double x = 0;
            if (!numericValue(v, x)) return {};
            const bool ok = (loOpen ? x > lo : x >= lo) && (hiOpen ? x < hi : x <= hi);
            if (!ok) return "must be in " + text + ", got " + toTomlLiteral(v);
            return {};
          },
          {}};
}

ConfigConstraint oneOf(std::vector<std::string> choices) {
  const std::string list = joinChoices(choices, ", ");
  return {"one of " + list,
          [choices, list](const ConfigValue& v) -> std::string {
            const auto* s = std::get_if<std::string>(&v);
            if (!s) return {};
            for (const auto& c : choices) {
              if (*s == c) return {};
            }
            return "must be one of " + list + "; got " + quoteToml(*s);
          },
          std::move(choices)};
}

ConfigConstraint eachOneOf(std::vector<std::string> choices) {
  const std::string list = joinChoices(choices, ", ");
  return {"of " + list,
          [choices, list](const ConfigValue& v) -> std::string {
            const auto* items = std::get_if<std::vector<std::string>>(&v);
            if (!items) return {};
            for (std::size_t i = 0; i < items->size(); ++i) {
              if (std::find(choices.begin(), choices.end(), (*items)[i]) == choices.end()) {
                return "item " + std::to_string(i) + " must be one of " + list + "; got " +
                       quoteToml((*items)[i]);
              }
            }
            return {};
          },
          std::move(choices)};
}

ConfigConstraint nonEmpty() {
  return {"(non-empty)",
          [](const ConfigValue& v) -> std::string {
            const auto* s = std::get_if<std::string>(&v);
            if (s && s->empty()) return "must not be empty";
            return {};
          },
          {}};
}

namespace detail {

ConfigConstraint integerBounds(std::int64_t lo, std::int64_t hi) {
  return {"",
          [lo, hi](const ConfigValue& v) -> std::string {
            const auto* i = std::get_if<std::int64_t>(&v);
            if (!i) return {};
            if (*i < lo) return "must be >= " + std::to_string(lo) + ", got " + std::to_string(*i);
            if (*i > hi) {
              return "must be <= " + std::to_string(hi) + ", got " + std::to_string(*i);
            }
            return {};
          },
          {}};
}

ConfigKey finishConfigKey(ConfigKey key, ConfigConstraint typeBounds) {
  // A choice enum's names come from its table (typeBounds), never from the entry.
  if (!typeBounds.choices.empty()) {
    key.constraint.choices = typeBounds.choices;
    if (key.constraint.text.empty()) key.constraint.text = typeBounds.text;
  }
  if (key.type == ConfigType::String && !key.constraint.choices.empty()) {
    key.type = ConfigType::Choice;
  }
  ConfigCheck own = std::move(key.constraint.check);
  ConfigCheck bounds = std::move(typeBounds.check);
  const bool isFloat = key.type == ConfigType::Float;
  // Every key gets the checks its member type implies (finite floats, integers that fit),
  // then its own constraint.
  key.constraint.check = [own, bounds, isFloat](const ConfigValue& v) -> std::string {
    if (isFloat) {
      const auto* d = std::get_if<double>(&v);
      if (d && !std::isfinite(*d)) return "must be a finite number, got " + toTomlLiteral(v);
    }
    if (bounds) {
      if (auto reason = bounds(v); !reason.empty()) return reason;
    }
    if (own) return own(v);
    return {};
  };
  key.defaultValue = key.get(RunConfig{});
  return key;
}

}  // namespace detail

}  // namespace attnlab::core
