#pragma once

#include "core/model/batch_padding.h"
#include "core/model/encoder_layer.h"
#include "core/model/variants/attention_adversary.h"
#include "core/model/variants/squeeze_excitation.h"

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>

#include <vector>

namespace attnlab::core {

struct AttentionConfig;

/// What a forward pass should produce besides the MLM loss.
struct ForwardOptions {
  /// None: every position is real, and attention needs no padding bias.
  BatchPadding padding = BatchPadding::Some;
  /// Named hook points to capture or replace (hook_points.h); null: none.
  HookSession* hooks = nullptr;
  bool keepGuidanceProbabilities = false;  ///< probabilities with their graph (guidance loss)
  bool adversarial = false;                ///< ASA: mask attention with the adversaries
  AdversaryOptions adversary;
  bool wantLogits = false;  ///< selected-position and first-position logits (ASA's KL terms)
  /// Also the logits at every real position (ASA's token KL with kl_reduction = batchmean).
  bool wantRealLogits = false;
  /// The MLM loss and accuracy; ASA's adversarial pass only needs its logits.
  bool computeLoss = true;
};

/// The result of one MLM forward pass. Loss and counts stay on the device: the trainer
/// reads them on the host once per logging interval, never per step.
struct MlmOutput {
  torch::Tensor loss;            ///< mean cross-entropy over the selected positions (nats)
  torch::Tensor correct;         ///< number of selected positions predicted exactly (int64)
  torch::Tensor predicted;       ///< number of selected positions (int64)
  torch::Tensor hidden;          ///< final hidden states [B, T, H]
  torch::Tensor selectedLogits;  ///< [N, V] at the selected positions (wantLogits)
  torch::Tensor firstLogits;     ///< [B, V] at position 0 (wantLogits)
  /// [R, V] at every real position (attention mask true), in the flattened [B, T] order
  /// (wantRealLogits)
  torch::Tensor realLogits;
  std::vector<torch::Tensor> guidanceProbabilities;  ///< per layer [B, H, T, T], with graph
  std::vector<torch::Tensor> adversarialMasks;       ///< per layer keep-masks [B, T, T]
  torch::Tensor squeezeWeights;                      ///< [B, L] when SE is on
  torch::Tensor gateMeans;  ///< [L, heads] mean output gate per layer and head, when gated
};

/// A BERT/RoBERTa-style encoder trained with masked language modelling: token
/// embeddings (+ learned absolute positions, switchable; or rotary positions in the
/// attention, model.position), embedding LayerNorm and dropout, L encoder layers (Post-LN or
/// Pre-LN, the latter with a final LayerNorm; windowed or global attention; GELU or GeGLU;
/// with or without biases: ModernBERT's layout is Pre-LN, RoPE, windows, GeGLU, no biases),
/// optional Squeeze-and-Excitation over the layers (SesameBERT), and an MLM head (dense,
/// GELU, LayerNorm, decoder tied to the token embeddings). With ASA it also owns one
/// adversary per layer ("adversaries.<l>"). Parameter names double as checkpoint keys.
/// Random: the papers' initialisation (model.init_std, the variants' own). Replaced: the
/// caller overwrites every parameter (a checkpoint, a pretrained model), so the normal
/// draws over every weight (0.7 s at BERT-base on 2 cores) are skipped; LibTorch's modules
/// still make their own default values.
enum class ParameterInit { Random, Replaced };

class MaskedLanguageModelImpl : public torch::nn::Module {
 public:
  MaskedLanguageModelImpl(const ModelConfig& config, const AttentionConfig& attention,
                          int sequenceLength, int vocabSize, int padId,
                          ParameterInit init = ParameterInit::Random);
  /// A plain encoder (no attention variants).
  MaskedLanguageModelImpl(const ModelConfig& config, int vocabSize, int padId,
                          ParameterInit init = ParameterInit::Random);

  /// inputIds: [B, T] int64; attentionMask: [B, T] bool (true = real token).
  /// Returns final hidden states [B, T, H] (after SE when it is on).
  torch::Tensor encode(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                       HookSession* hooks = nullptr);

  /// Vocabulary logits for hidden rows [N, H] -> [N, V].
  torch::Tensor logits(const torch::Tensor& hiddenRows);

  /// The logit lens: the MLM head applied to one layer's output rows [N, H] -> [N, V], after
  /// the final LayerNorm as the model's own output gets it (Pre-LN). For the last layer of a
  /// model without SesameBERT's layer weights this is logits() of the model's output.
  torch::Tensor lensLogits(const torch::Tensor& layerOutputRows);

  /// Full MLM pass. The output layer runs only on the selected positions (labels != -100):
  /// the other 85% would be discarded by the loss, and the vocabulary projection is the
  /// largest matrix product of a small model. Only wantRealLogits (ASA's batchmean token KL)
  /// runs it on every real position as well.
  MlmOutput forward(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                    const torch::Tensor& labels, const ForwardOptions& options);
  MlmOutput forward(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                    const torch::Tensor& labels, HookSession* hooks = nullptr);

  /// The first layer's input: token (+ position) embeddings, LayerNorm, dropout.
  torch::Tensor embed(const torch::Tensor& inputIds);

  /// The encoder part of a pass, with every option; also fills the masks and SE weights.
  torch::Tensor encodeWith(const torch::Tensor& inputIds, const torch::Tensor& attentionMask,
                           const ForwardOptions& options, MlmOutput& out);

  /// BERT initialisation: weights ~ N(0, init_std), biases 0, LayerNorm (1, 0), the
  /// <pad> embedding row 0; then each variant's own initialisation.
  void resetParameters(double initStd);

  int layerCount() const { return static_cast<int>(m_layers->size()); }
  EncoderLayer layer(int index) { return m_layers->ptr<EncoderLayerImpl>(index); }
  bool hasAdversaries() const { return !m_adversaries.is_empty(); }
  bool hasSqueezeExcitation() const { return !m_squeeze.is_empty(); }

 private:
  void build(const ModelConfig& config, const AttentionConfig& attention, int sequenceLength,
             int vocabSize);

  int m_padId;
  bool m_preNorm;
  bool m_weightedAverage = true;
  int m_attentionWindow = 0;  ///< model.attention_window (0: every layer global)
  torch::nn::Embedding m_tokenEmbedding{nullptr};
  torch::nn::Embedding m_positionEmbedding{nullptr};  // null when positions are off
  AffineLayerNorm m_embeddingNorm{nullptr};
  FastDropout m_embeddingDropout{nullptr};
  torch::nn::ModuleList m_layers{nullptr};
  AffineLayerNorm m_finalNorm{nullptr};  // Pre-LN only
  LayerSqueezeExcitation m_squeeze{nullptr};
  torch::nn::ModuleList m_adversaries{nullptr};
  torch::nn::Linear m_headTransform{nullptr};
  AffineLayerNorm m_headNorm{nullptr};
  torch::Tensor m_decoderBias;
};
TORCH_MODULE(MaskedLanguageModel);

/// The additive attention mask for a [B, T] bool mask: [B, 1, 1, T], 0 where true and
/// -10000 where false (BERT's value; also what RealFormer and ASA add after their terms).
torch::Tensor additiveAttentionMask(const torch::Tensor& attentionMask, torch::ScalarType dtype);

/// The value used for masked logits.
inline constexpr double kMaskedLogit = -10000.0;

}  // namespace attnlab::core
