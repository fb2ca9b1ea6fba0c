#pragma once

// Every multiple-choice setting of a run as an enum, with its one table of names.
//
// The schema (config_schema.cpp) takes a choice key's allowed values from the table of its
// member's enum and converts the text once, at validation; the model, trainer and data
// code only ever see the enum. So:
//   - a name cannot be accepted by the schema without an enum value behind it;
//   - every table lists its enum's values 0..N-1 once each, in declaration order, with
//     distinct names (the `choiceTablesAreComplete` test in tests/core/test_config.cpp);
//   - code that dispatches on a choice uses `switch` without `default`, so a new value
//     that nobody handles is a compile error (-Werror=switch, cmake/AttnLabCompilerSetup).
// Adding a choice: the enum value, its row in the table, the cases in the switches the
// compiler names, a test. See docs/architecture.md, "Add a config key".

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace attnlab::core {

/// One row of a choice table: the enum value and its text in TOML, JSON and --set.
template <class E>
struct ChoiceName {
  E value;
  std::string_view name;
};

// --- the choices ----------------------------------------------------------------------
// Declared without explicit values: the tables list them in this order.

enum class CorpusSource { Wordnet, Text };
enum class InvalidUtf8Policy { Skip, Reject };
/// How a corpus file's lines are read (whatever its compression).
enum class CorpusFormat {
  Auto,   ///< .jsonl / .ndjson (optionally .gz / .zst) are JSON lines, everything else text
  Text,   ///< every line is a text line
  Jsonl,  ///< every line is a JSON object whose corpus.text_field holds the text
};
enum class TokenizerAlgorithm { Unigram, Bpe };
enum class Packing {
  Pack,  ///< lines concatenated (separated by </s>) and cut into full blocks
  Line   ///< one block per line, truncated
};
enum class NormPlacement { Post, Pre };
/// How the model knows positions: a learned table added to the embeddings (BERT), or rotary
/// embeddings applied to each head's queries and keys (Su et al. 2021; ModernBERT).
enum class PositionEncoding { Learned, Rope };
/// The feed-forward block's non-linearity: GELU(x W1) W2 (BERT), or GeGLU,
/// (GELU(x W_in) * x W_gate) W2 (Shazeer 2020; ModernBERT).
enum class FeedForward { Gelu, Geglu };
enum class LearningRateDecay { Linear, Constant };
/// `Auto` picks CUDA when this LibTorch has it and a GPU is present.
enum class DeviceChoice { Cpu, Cuda, Auto };
/// Arithmetic of a training step (core/runtime/precision.h): float32 throughout; TF32
/// matrix products on NVIDIA GPUs; bfloat16 or float16 autocast (float16 with a dynamic loss
/// scale). Master weights and optimiser state stay float32 in every case.
enum class Precision { Float32, Tf32, Bf16, Fp16 };

/// Attention-guidance patterns (Deshpande & Narasimhan 2020); docs/variants.md.
enum class GuidancePattern { None, Next, Prev, First, Delim, Period };
enum class GuidanceLossForm { Frobenius, Mean };
enum class GuidanceSchedule { Linear, Hold };
enum class GuidanceEdgeRows { Uniform, Zero };

/// Direct position interactions (Dufter et al. 2020).
enum class PositionMode { None, Absolute, Relative, Both };
enum class RelativeBias { Directional, Symmetric };
enum class PositionLayers { First, All };

/// Convolution over the attention matrix (Dufter et al. 2020).
enum class ConvAttention { None, OneD, TwoD };
/// RealFormer's residual scores.
enum class ResidualScores { None, Sum, Mean };
/// Gated attention (Qiu et al. 2025): a sigmoid gate on each head's output.
enum class OutputGate { None, Head, Element };
/// QK-norm (Dehghani et al. 2023): a normalisation of each head's queries and keys.
enum class QkNorm { None, Layer, Rms };
/// What turns each row of scores into attention weights (docs/variants.md, "Softmax
/// alternatives").
enum class Normalizer { Softmax, Softmax1, Softpick, Sigmoid, Clipped };
/// softmax1's extra logit in the denominator: learned per head (gpt-oss) or fixed at 0.
enum class SinkLogit { Learned, Zero };

/// Adversarial self-attention (Wu et al. 2023).
enum class AsaBinarize { Step, Gumbel };
enum class AsaPenalty { Tau, TauSquared };
enum class AsaKl { Forward, Symmetric };
enum class AsaKlReduction { MaskedMean, BatchMean };

/// SesameBERT.
enum class BlurTarget { None, Context, Values };
enum class SqueezeCombine { WeightedAverage, ScaledLast };

// --- the tables -----------------------------------------------------------------------
// choiceTable(E{}) is found by argument-dependent lookup from the generic helpers below.

#define ATTNLAB_CHOICE_TABLE(Enum, ...)                               \
  inline constexpr ChoiceName<Enum> k##Enum##Names[] = {__VA_ARGS__}; \
  constexpr const auto& choiceTable(Enum) {                           \
    return k##Enum##Names;                                            \
  }

ATTNLAB_CHOICE_TABLE(CorpusSource, {CorpusSource::Wordnet, "wordnet"}, {CorpusSource::Text, "text"})
ATTNLAB_CHOICE_TABLE(InvalidUtf8Policy, {InvalidUtf8Policy::Skip, "skip"},
                     {InvalidUtf8Policy::Reject, "reject"})
ATTNLAB_CHOICE_TABLE(CorpusFormat, {CorpusFormat::Auto, "auto"}, {CorpusFormat::Text, "text"},
                     {CorpusFormat::Jsonl, "jsonl"})
ATTNLAB_CHOICE_TABLE(TokenizerAlgorithm, {TokenizerAlgorithm::Unigram, "unigram"},
                     {TokenizerAlgorithm::Bpe, "bpe"})
ATTNLAB_CHOICE_TABLE(Packing, {Packing::Pack, "pack"}, {Packing::Line, "line"})
ATTNLAB_CHOICE_TABLE(NormPlacement, {NormPlacement::Post, "post"}, {NormPlacement::Pre, "pre"})
ATTNLAB_CHOICE_TABLE(PositionEncoding, {PositionEncoding::Learned, "learned"},
                     {PositionEncoding::Rope, "rope"})
ATTNLAB_CHOICE_TABLE(FeedForward, {FeedForward::Gelu, "gelu"}, {FeedForward::Geglu, "geglu"})
ATTNLAB_CHOICE_TABLE(LearningRateDecay, {LearningRateDecay::Linear, "linear"},
                     {LearningRateDecay::Constant, "constant"})
ATTNLAB_CHOICE_TABLE(DeviceChoice, {DeviceChoice::Cpu, "cpu"}, {DeviceChoice::Cuda, "cuda"},
                     {DeviceChoice::Auto, "auto"})
ATTNLAB_CHOICE_TABLE(Precision, {Precision::Float32, "float32"}, {Precision::Tf32, "tf32"},
                     {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"})
ATTNLAB_CHOICE_TABLE(GuidancePattern, {GuidancePattern::None, "none"},
                     {GuidancePattern::Next, "next"}, {GuidancePattern::Prev, "prev"},
                     {GuidancePattern::First, "first"}, {GuidancePattern::Delim, "delim"},
                     {GuidancePattern::Period, "period"})
ATTNLAB_CHOICE_TABLE(GuidanceLossForm, {GuidanceLossForm::Frobenius, "frobenius"},
                     {GuidanceLossForm::Mean, "mean"})
ATTNLAB_CHOICE_TABLE(GuidanceSchedule, {GuidanceSchedule::Linear, "linear"},
                     {GuidanceSchedule::Hold, "hold"})
ATTNLAB_CHOICE_TABLE(GuidanceEdgeRows, {GuidanceEdgeRows::Uniform, "uniform"},
                     {GuidanceEdgeRows::Zero, "zero"})
ATTNLAB_CHOICE_TABLE(PositionMode, {PositionMode::None, "none"},
                     {PositionMode::Absolute, "absolute"}, {PositionMode::Relative, "relative"},
                     {PositionMode::Both, "both"})
ATTNLAB_CHOICE_TABLE(RelativeBias, {RelativeBias::Directional, "directional"},
                     {RelativeBias::Symmetric, "symmetric"})
ATTNLAB_CHOICE_TABLE(PositionLayers, {PositionLayers::First, "first"}, {PositionLayers::All, "all"})
ATTNLAB_CHOICE_TABLE(ConvAttention, {ConvAttention::None, "none"}, {ConvAttention::OneD, "1d"},
                     {ConvAttention::TwoD, "2d"})
ATTNLAB_CHOICE_TABLE(ResidualScores, {ResidualScores::None, "none"}, {ResidualScores::Sum, "sum"},
                     {ResidualScores::Mean, "mean"})
ATTNLAB_CHOICE_TABLE(OutputGate, {OutputGate::None, "none"}, {OutputGate::Head, "head"},
                     {OutputGate::Element, "element"})
ATTNLAB_CHOICE_TABLE(QkNorm, {QkNorm::None, "none"}, {QkNorm::Layer, "layer"}, {QkNorm::Rms, "rms"})
ATTNLAB_CHOICE_TABLE(Normalizer, {Normalizer::Softmax, "softmax"},
                     {Normalizer::Softmax1, "softmax1"}, {Normalizer::Softpick, "softpick"},
                     {Normalizer::Sigmoid, "sigmoid"}, {Normalizer::Clipped, "clipped"})
ATTNLAB_CHOICE_TABLE(SinkLogit, {SinkLogit::Learned, "learned"}, {SinkLogit::Zero, "zero"})
ATTNLAB_CHOICE_TABLE(AsaBinarize, {AsaBinarize::Step, "step"}, {AsaBinarize::Gumbel, "gumbel"})
ATTNLAB_CHOICE_TABLE(AsaPenalty, {AsaPenalty::Tau, "tau"}, {AsaPenalty::TauSquared, "tau_squared"})
ATTNLAB_CHOICE_TABLE(AsaKl, {AsaKl::Forward, "forward"}, {AsaKl::Symmetric, "symmetric"})
ATTNLAB_CHOICE_TABLE(AsaKlReduction, {AsaKlReduction::MaskedMean, "masked_mean"},
                     {AsaKlReduction::BatchMean, "batchmean"})
ATTNLAB_CHOICE_TABLE(BlurTarget, {BlurTarget::None, "none"}, {BlurTarget::Context, "context"},
                     {BlurTarget::Values, "values"})
ATTNLAB_CHOICE_TABLE(SqueezeCombine, {SqueezeCombine::WeightedAverage, "weighted_average"},
                     {SqueezeCombine::ScaledLast, "scaled_last"})

#undef ATTNLAB_CHOICE_TABLE

/// True for the enums above (those with a choice table).
template <class E, class = void>
struct IsConfigChoice : std::false_type {};
template <class E>
struct IsConfigChoice<E, std::void_t<decltype(choiceTable(std::declval<E>()))>> : std::true_type {};
template <class E>
inline constexpr bool kIsConfigChoice = IsConfigChoice<E>::value;

/// The text of a choice ("sum" for ResidualScores::Sum).
template <class E>
constexpr std::string_view choiceName(E value) {
  for (const auto& row : choiceTable(value)) {
    if (row.value == value) return row.name;
  }
  return "?";  // unreachable while the completeness test passes
}

/// The choice a text names, or nothing.
template <class E>
constexpr std::optional<E> parseChoice(std::string_view text) {
  for (const auto& row : choiceTable(E{})) {
    if (row.name == text) return row.value;
  }
  return std::nullopt;
}

/// std::string of choiceName, for concatenation in messages.
template <class E>
std::string choiceText(E value) {
  return std::string(choiceName(value));
}

}  // namespace attnlab::core
