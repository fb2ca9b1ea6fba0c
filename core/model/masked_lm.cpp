#include "core/model/masked_lm.h"

#include "core/config/run_config.h"

#include <torch/torch.h>

namespace attnlab::core {

torch::Tensor additiveAttentionMask(const torch::Tensor& attentionMask, torch::ScalarType dtype) {
  auto keep = attentionMask.to(dtype).unsqueeze(1).unsqueeze(2);  // [B, 1, 1, T]
  return (1.0 - keep) * kMaskedLogit;
}

MaskedLanguageModelImpl::MaskedLanguageModelImpl(const ModelConfig& config, int vocabSize,
                                                 int padId)
    : m_padId(padId), m_preNorm(config.norm == "pre") {
  const auto norm = torch::nn::LayerNormOptions({config.hiddenSize}).eps(config.layerNormEps);
  m_tokenEmbedding =
      register_module("token_embedding", torch::nn::Embedding(vocabSize, config.hiddenSize));
  if (config.positionEmbeddings) {
    m_positionEmbedding = register_module(
        "position_embedding", torch::nn::Embedding(config.maxPositions, config.hiddenSize));
  }
  m_embeddingNorm = register_module("embedding_norm", torch::nn::LayerNorm(norm));
  m_embeddingDropout = register_module("embedding_dropout", FastDropout(config.dropout));
  m_layers = register_module("layers", torch::nn::ModuleList());
  for (int i = 0; i < config.layers; ++i) m_layers->push_back(EncoderLayer(config));
  if (m_preNorm) m_finalNorm = register_module("final_norm", torch::nn::LayerNorm(norm));
  m_headTransform =
      register_module("mlm_transform", torch::nn::Linear(config.hiddenSize, config.hiddenSize));
  m_headNorm = register_module("mlm_norm", torch::nn::LayerNorm(norm));
  m_decoderBias = register_parameter("mlm_bias", torch::zeros({vocabSize}));
  resetParameters(config.initStd);
}

void MaskedLanguageModelImpl::resetParameters(double initStd) {
  torch::NoGradGuard noGrad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<torch::nn::Linear>()) {
      linear->weight.normal_(0.0, initStd);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = module->as<torch::nn::Embedding>()) {
      embedding->weight.normal_(0.0, initStd);
    } else if (auto* layerNorm = module->as<torch::nn::LayerNorm>()) {
      layerNorm->weight.fill_(1.0);
      layerNorm->bias.zero_();
    }
  }
  m_tokenEmbedding->weight[m_padId].zero_();
  m_decoderBias.zero_();
}

torch::Tensor MaskedLanguageModelImpl::encode(const torch::Tensor& inputIds,
                                              const torch::Tensor& attentionMask,
                                              AttentionCapture* capture) {
  auto x = m_tokenEmbedding(inputIds);
  if (m_positionEmbedding) {
    auto positions = torch::arange(inputIds.size(1), inputIds.options());
    x = x + m_positionEmbedding(positions).unsqueeze(0);
  }
  x = m_embeddingDropout(m_embeddingNorm(x));
  const auto mask = additiveAttentionMask(attentionMask, x.scalar_type());
  for (size_t i = 0; i < m_layers->size(); ++i) {
    x = m_layers->ptr<EncoderLayerImpl>(i)->forward(x, mask, capture);
  }
  return m_preNorm ? m_finalNorm(x) : x;
}

torch::Tensor MaskedLanguageModelImpl::logits(const torch::Tensor& hiddenRows) {
  auto h = m_headNorm(torch::gelu(m_headTransform(hiddenRows)));
  return torch::nn::functional::linear(h, m_tokenEmbedding->weight, m_decoderBias);
}

MlmOutput MaskedLanguageModelImpl::forward(const torch::Tensor& inputIds,
                                           const torch::Tensor& attentionMask,
                                           const torch::Tensor& labels, AttentionCapture* capture) {
  MlmOutput out;
  out.hidden = encode(inputIds, attentionMask, capture);
  const auto flatLabels = labels.reshape({-1});
  const auto selected = flatLabels.ne(-100).nonzero().squeeze(1);
  const auto rows = out.hidden.reshape({-1, out.hidden.size(-1)}).index_select(0, selected);
  const auto targets = flatLabels.index_select(0, selected);
  const auto scores = logits(rows);
  out.loss = torch::nn::functional::cross_entropy(scores, targets);
  {
    torch::NoGradGuard noGrad;
    out.correct = scores.argmax(-1).eq(targets).sum();
    out.predicted = torch::full({}, targets.size(0), targets.options());
  }
  return out;
}

}  // namespace attnlab::core
