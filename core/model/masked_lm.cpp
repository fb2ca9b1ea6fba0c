#include "core/model/masked_lm.h"

#include "core/config/run_config.h"
#include "core/model/attention_window.h"

#include <torch/torch.h>

#include <stdexcept>
#include <string>

namespace attnlab::core {

torch::Tensor additiveAttentionMask(const torch::Tensor& attentionMask, torch::ScalarType dtype) {
  auto keep = attentionMask.to(dtype).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, T]
  return (1.0 - keep) * kMaskedLogit;
}

MaskedLanguageModelImpl::MaskedLanguageModelImpl(const ModelConfig& config,
                                                 const AttentionConfig& attention,
                                                 int sequenceLength, int vocabSize, int padId,
                                                 ParameterInit init)
    : m_padId(padId), m_preNorm(config.norm == NormPlacement::Pre) {
  build(config, attention, sequenceLength, vocabSize);
  if (init == ParameterInit::Random) resetParameters(config.initStd);
}

MaskedLanguageModelImpl::MaskedLanguageModelImpl(const ModelConfig& config, int vocabSize,
                                                 int padId, ParameterInit init)
    : m_padId(padId), m_preNorm(config.norm == NormPlacement::Pre) {
  build(config, AttentionConfig{}, config.maxPositions, vocabSize);
  if (init == ParameterInit::Random) resetParameters(config.initStd);
}

void MaskedLanguageModelImpl::build(const ModelConfig& config, const AttentionConfig& attention,
                                    int sequenceLength, int vocabSize) {
  const auto norm = [&] {
    return AffineLayerNorm(config.hiddenSize, config.layerNormEps, config.bias);
  };
  m_attentionWindow = config.attentionWindow;
  m_tokenEmbedding =
      register_module("token_embedding", torch::nn::Embedding(vocabSize, config.hiddenSize));
  if (config.positionEmbeddings && config.position == PositionEncoding::Learned) {
    m_positionEmbedding = register_module(
        "position_embedding", torch::nn::Embedding(config.maxPositions, config.hiddenSize));
  }
  m_embeddingNorm = register_module("embedding_norm", norm());
  m_embeddingDropout = register_module("embedding_dropout", FastDropout(config.dropout));
  m_layers = register_module("layers", torch::nn::ModuleList());
  for (int i = 0; i < config.layers; ++i) {
    m_layers->push_back(EncoderLayer(config, attention, i, sequenceLength));
  }
  if (m_preNorm) m_finalNorm = register_module("final_norm", norm());
  if (attention.squeeze.enabled) {
    m_squeeze = register_module(
        "squeeze",
        LayerSqueezeExcitation(config.layers, attention.squeeze.ratio, attention.squeeze.biasInit));
    m_weightedAverage = attention.squeeze.combine == SqueezeCombine::WeightedAverage;
  }
  if (attention.asa.enabled) {
    m_adversaries = register_module("adversaries", torch::nn::ModuleList());
    for (int i = 0; i < config.layers; ++i) {
      m_adversaries->push_back(AttentionAdversary(config.hiddenSize));
    }
  }
  m_headTransform = register_module(
      "mlm_transform",
      torch::nn::Linear(
          torch::nn::LinearOptions(config.hiddenSize, config.hiddenSize).bias(config.bias)));
  m_headNorm = register_module("mlm_norm", norm());
  m_decoderBias = register_parameter("mlm_bias", torch::zeros({vocabSize}));
}

void MaskedLanguageModelImpl::resetParameters(double initStd) {
  torch::NoGradGuard noGrad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<torch::nn::Linear>()) {
      linear->weight.normal_(0.0, initStd);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = module->as<torch::nn::Embedding>()) {
      embedding->weight.normal_(0.0, initStd);
    } else if (auto* layerNorm = module->as<AffineLayerNorm>()) {
      layerNorm->resetParameters();
    }
  }
  m_tokenEmbedding->weight[m_padId].zero_();
  m_decoderBias.zero_();
  // The variants' own initialisations, which the generic pass above must not decide.
  for (size_t i = 0; i < m_layers->size(); ++i) {
    m_layers->ptr<EncoderLayerImpl>(i)->attention()->resetVariantParameters();
  }
  if (m_squeeze) m_squeeze->resetParameters(initStd);
}

torch::Tensor MaskedLanguageModelImpl::embed(const torch::Tensor& inputIds) {
  auto x = m_tokenEmbedding(inputIds);
  if (m_positionEmbedding) {
    auto positions = torch::arange(inputIds.size(1), inputIds.options());
    x = x + m_positionEmbedding(positions).unsqueeze(0);
  }
  return m_embeddingDropout(m_embeddingNorm(x));
}

torch::Tensor MaskedLanguageModelImpl::encodeWith(const torch::Tensor& inputIds,
                                                  const torch::Tensor& attentionMask,
                                                  const ForwardOptions& options, MlmOutput& out) {
  HookSession* hooks = options.hooks;
  auto x = hookPoint(hooks, "embed", embed(inputIds));

  AttentionContext ctx;
  // Without padding the bias would be all zeros: leaving it out lets a GPU run the flash
  // kernel, which takes no mask, instead of the memory-efficient one.
  if (options.padding == BatchPadding::Some)
    ctx.paddingBias = additiveAttentionMask(attentionMask, x.scalar_type());
  if (m_attentionWindow > 0) {
    ctx.windowBias = windowBias(x.size(1), m_attentionWindow, x.scalar_type(), x.device());
    ctx.windowedPaddingBias =
        ctx.paddingBias.defined() ? ctx.paddingBias + ctx.windowBias : ctx.windowBias;
  }
  ctx.hooks = hooks;
  ctx.keepProbabilitiesForGuidance = options.keepGuidanceProbabilities;
  const bool adversarial = options.adversarial && m_adversaries;
  std::vector<torch::Tensor> outputs;
  for (size_t i = 0; i < m_layers->size(); ++i) {
    if (adversarial) {
      // Each layer's adversary looks at that layer's input in this (adversarial) pass.
      auto keep = hookPoint(hooks, "blocks." + std::to_string(i) + ".asa.keep",
                            m_adversaries->ptr<AttentionAdversaryImpl>(i)->forward(
                                x, attentionMask, options.adversary));
      ctx.adversarialBiases.push_back(adversarialMaskBias(keep).to(x.scalar_type()));
      out.adversarialMasks.push_back(keep);
    }
    x = m_layers->ptr<EncoderLayerImpl>(i)->forward(x, ctx);
    if (m_squeeze) outputs.push_back(x);
  }
  if (m_squeeze) {
    out.squeezeWeights =
        hookPoint(hooks, "squeeze.weights", m_squeeze->forward(outputs, attentionMask));
    x = LayerSqueezeExcitationImpl::combine(outputs, out.squeezeWeights, m_weightedAverage);
  }
  out.guidanceProbabilities = std::move(ctx.guidanceProbabilities);
  if (!ctx.gateMeans.empty()) out.gateMeans = torch::stack(ctx.gateMeans);
  return hookPoint(hooks, "encoder.out", m_preNorm ? m_finalNorm(x) : x);
}

torch::Tensor MaskedLanguageModelImpl::encode(const torch::Tensor& inputIds,
                                              const torch::Tensor& attentionMask,
                                              HookSession* hooks) {
  ForwardOptions options;
  options.hooks = hooks;
  MlmOutput out;
  return encodeWith(inputIds, attentionMask, options, out);
}

torch::Tensor MaskedLanguageModelImpl::logits(const torch::Tensor& hiddenRows) {
  auto h = m_headNorm(torch::gelu(m_headTransform(hiddenRows)));
  return torch::nn::functional::linear(h, m_tokenEmbedding->weight, m_decoderBias);
}

torch::Tensor MaskedLanguageModelImpl::lensLogits(const torch::Tensor& layerOutputRows) {
  return logits(m_preNorm ? m_finalNorm(layerOutputRows) : layerOutputRows);
}

MlmOutput MaskedLanguageModelImpl::forward(const torch::Tensor& inputIds,
                                           const torch::Tensor& attentionMask,
                                           const torch::Tensor& labels, HookSession* hooks) {
  ForwardOptions options;
  options.hooks = hooks;
  return forward(inputIds, attentionMask, labels, options);
}

MlmOutput MaskedLanguageModelImpl::forward(const torch::Tensor& inputIds,
                                           const torch::Tensor& attentionMask,
                                           const torch::Tensor& labels,
                                           const ForwardOptions& options) {
  MlmOutput out;
  // The selected positions first: nonzero() waits for the device to reach it, and here only
  // the batch's copy is queued before it; after the encoder it would stall the host until
  // the whole forward pass had run, leaving the GPU idle while the rest is launched.
  const auto flatLabels = labels.reshape({-1});
  const auto selected = flatLabels.ne(-100).nonzero().squeeze(1);
  const auto targets = flatLabels.index_select(0, selected);
  // The real positions likewise before the encoder (ASA's batchmean token KL); none to look
  // up when the caller knows every position is real.
  torch::Tensor real;
  if (options.wantRealLogits && options.padding == BatchPadding::Some) {
    real = attentionMask.reshape({-1}).nonzero().squeeze(1);
  }
  out.hidden = encodeWith(inputIds, attentionMask, options, out);
  const auto hiddenSize = out.hidden.size(-1);
  if (options.wantRealLogits) {
    // The hidden rows are selected before the head, so the backward pass scatters [R, H]
    // rather than vocabulary-sized gradients, and padding rows cost no head pass.
    const auto flat = out.hidden.reshape({-1, hiddenSize});
    out.realLogits = logits(real.defined() ? flat.index_select(0, real) : flat);
  }
  torch::Tensor scores;
  if (options.wantLogits) {
    // Two head passes (selected rows, first positions) rather than one over their
    // concatenation: slicing the joint result back apart costs two full-size zero-filled
    // gradients in the backward pass (measured ~50 ms per ASA step at the benchmark size).
    const auto rows = out.hidden.reshape({-1, hiddenSize}).index_select(0, selected);
    scores = hookPoint(options.hooks, "mlm.logits", logits(rows));
    out.selectedLogits = scores;
    out.firstLogits = logits(out.hidden.select(1, 0));
  } else {
    scores = hookPoint(options.hooks, "mlm.logits",
                       logits(out.hidden.reshape({-1, hiddenSize}).index_select(0, selected)));
  }
  if (!options.computeLoss) return out;
  out.loss = torch::nn::functional::cross_entropy(scores, targets);
  {
    torch::NoGradGuard noGrad;
    out.correct = scores.argmax(-1).eq(targets).sum();
    out.predicted = torch::full({}, targets.size(0), targets.options());
  }
  return out;
}

}  // namespace attnlab::core
