#include "core/model/self_attention.h"

#include "core/config/run_config.h"
#include "core/model/attention_window.h"
#include "core/model/qkv_split.h"
#include "core/model/variants/gaussian_blur.h"
#include "core/model/variants/qk_norm.h"
#include "core/runtime/torch_compat.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

namespace attnlab::core {

SelfAttentionImpl::SelfAttentionImpl(const ModelConfig& model, const AttentionConfig& attention,
                                     int layerIndex, int sequenceLength)
    : m_layerIndex(layerIndex),
      m_hookPrefix("blocks." + std::to_string(layerIndex) + ".attn."),
      m_heads(model.heads),
      m_headSize(model.hiddenSize / model.heads),
      m_residual(attention.residual),
      m_blurTarget(attention.blur.target),
      m_outputGate(attention.outputGate) {
  const auto linear = [&](int in, int out) {
    return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(model.bias));
  };
  m_qkv = register_module("qkv", linear(model.hiddenSize, 3 * model.hiddenSize));
  m_output = register_module("output", linear(model.hiddenSize, model.hiddenSize));
  m_windowed = isWindowedLayer(model, layerIndex);
  if (model.position == PositionEncoding::Rope) {
    // ModernBERT turns windowed layers' q and k with a smaller base than global ones'.
    m_rope = RotaryPositions(m_headSize, m_windowed ? model.ropeThetaLocal : model.ropeTheta);
  }
  m_attentionDropout = register_module("attention_dropout", FastDropout(model.attentionDropout));
  const auto& pos = attention.position;
  if (pos.mode != PositionMode::None && (pos.layers == PositionLayers::All || layerIndex == 0)) {
    m_position =
        register_module("position", PositionInteractions(m_heads, model.maxPositions, pos.mode,
                                                         pos.relative == RelativeBias::Symmetric));
  }
  switch (attention.conv) {
    case ConvAttention::None:
      break;
    case ConvAttention::OneD:
      m_conv1d = register_module("conv", ConvAttention1d(m_heads, sequenceLength));
      break;
    case ConvAttention::TwoD:
      m_conv2d = register_module("conv", ConvAttention2d(m_heads));
      break;
  }
  if (attention.temperature) {
    m_tauQ = register_parameter("temperature_q", torch::ones({m_heads}));
    m_tauK = register_parameter("temperature_k", torch::ones({m_heads}));
    m_tauV = register_parameter("temperature_v", torch::ones({m_heads}));
  }
  if (attention.qkNorm != QkNorm::None) {
    // The keys' LayerNorm has no shift: it would move a whole row of scores (qk_norm.h).
    const double eps = model.layerNormEps;
    m_qNorm = register_module("q_norm", HeadNorm(attention.qkNorm, m_headSize, eps, true));
    m_kNorm = register_module("k_norm", HeadNorm(attention.qkNorm, m_headSize, eps, false));
  }
  if (m_outputGate != OutputGate::None) {
    // W_theta [D -> heads] or [D -> D] with a bias; the model's BERT init draws the weight
    // from N(0, init_std) and zeroes the bias, so every gate starts near sigmoid(0) = 1/2
    // (the official code's initialisation; docs/variants.md, "Gated attention").
    const int gates = m_outputGate == OutputGate::Head ? m_heads : model.hiddenSize;
    m_gate = register_module("gate", torch::nn::Linear(model.hiddenSize, gates));
  }
  if (attention.normalizer != Normalizer::Softmax) {
    m_normalizer = register_module("normalizer", AttentionNormalizer(attention, m_heads));
  }
  if (attention.differential) {
    m_differential = register_module("differential", DifferentialAttention(m_headSize, layerIndex));
  }
  // RealFormer carries the scores, convolved attention rewrites the probabilities, and the
  // softmax alternatives and differential attention are not the fused kernel's softmax: all
  // need the product explicitly. The rest (position bias, temperature, ASA's mask as a bias,
  // the blurs outside the attention product) the fused kernel expresses.
  m_fusable = model.fusedAttention && torch_compat::hasFusedAttention() &&
              m_residual == ResidualScores::None && attention.conv == ConvAttention::None &&
              !m_normalizer && !m_differential;
  m_attentionDropoutP = model.attentionDropout;
  if (m_blurTarget != BlurTarget::None) {
    // A constant, not a parameter: SesameBERT's kernel is fixed.
    m_blurKernel =
        register_buffer("blur_kernel", gaussianKernel(attention.blur.window, attention.blur.sigma));
  }
}

void SelfAttentionImpl::resetVariantParameters() {
  torch::NoGradGuard noGrad;
  if (m_position) m_position->resetParameters();
  if (m_conv1d) m_conv1d->resetParameters();
  if (m_conv2d) m_conv2d->resetParameters();
  if (m_qNorm) m_qNorm->resetParameters();
  if (m_kNorm) m_kNorm->resetParameters();
  if (m_differential) m_differential->resetParameters();
  if (m_normalizer) m_normalizer->resetParameters();
  if (m_tauQ.defined()) {
    m_tauQ.fill_(1.0);
    m_tauK.fill_(1.0);
    m_tauV.fill_(1.0);
  }
}

torch::Tensor SelfAttentionImpl::temperatures() const {
  if (!m_tauQ.defined()) return {};
  return torch::stack({m_tauQ, m_tauK, m_tauV}).detach();
}

torch::Tensor SelfAttentionImpl::sinkLogits() const {
  return m_normalizer ? m_normalizer->sinkLogits() : torch::Tensor();
}

torch::Tensor SelfAttentionImpl::differentialLambda() const {
  return m_differential ? m_differential->lambda().detach() : torch::Tensor();
}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, AttentionContext& ctx) {
  const auto batch = x.size(0);
  const auto length = x.size(1);
  const auto hidden = x.size(2);
  // Linear layers see 2-D [B*T, H] input so LibTorch takes the fused addmm path (bias
  // inside the GEMM) rather than matmul + a separate add.
  auto projected = m_qkv(x.reshape({batch * length, hidden}));
  if (m_blurTarget == BlurTarget::Values) {
    // Blur the value projection along the sequence (the official code's commented-out
    // variant): the values part of [B, T, 3H].
    auto qkv3 = projected.view({batch, length, 3 * hidden});
    auto blurred = blurAlongSequence(qkv3.slice(2, 2 * hidden, 3 * hidden), m_blurKernel);
    projected = torch::cat({qkv3.slice(2, 0, 2 * hidden), blurred}, 2)
                    .reshape({batch * length, 3 * hidden});
  }
  // [B*T, 3H] -> three [B, heads, T, d] views, whose gradients go straight back into the
  // projection's layout (core/model/qkv_split.h).
  auto [q, k, v] = splitQkv(projected, batch, length, m_heads);
  if (m_qNorm) {
    // QK-norm over each head's d dimensions, before the temperature scales q and k.
    q = m_qNorm(q);
    k = m_kNorm(k);
  }
  if (m_rope.enabled()) {  // after QK-norm, as OLMo 2
    const int base = m_windowed ? 1 : 0;
    std::tie(q, k) = m_rope.apply(q, k, ctx.rotaryCos[base], ctx.rotarySin[base]);
  }
  if (m_tauQ.defined()) {
    // Dufter et al.'s learnable temperature: tau_q tau_k scales the logits, tau_v the values.
    q = q * m_tauQ.view({1, m_heads, 1, 1});
    k = k * m_tauK.view({1, m_heads, 1, 1});
    v = v * m_tauV.view({1, m_heads, 1, 1});
  }
  q = hook(ctx, "q", q);
  k = hook(ctx, "k", k);
  v = hook(ctx, "v", v);
  hookValueNorms(v, ctx);
  auto context = fusedAllowedBy(ctx, x) ? fusedAttention(q, k, v, ctx)
                 : m_differential       ? differentialAttention(q, k, v, ctx)
                                        : explicitAttention(q, k, v, ctx);  // [B, heads, T, d]
  if (m_gate) context = context * outputGate(x, ctx);
  // z: each head's context before the output projection (gated, when the output gate is
  // on); the head analysis's gates (Michel et al. 2019) are a replacement hook here
  // (core/inspect/gated_loss.cpp).
  context = hook(ctx, "z", context);
  context = context.transpose(1, 2).reshape({batch, length, hidden});
  if (m_blurTarget == BlurTarget::Context) context = blurAlongSequence(context, m_blurKernel);
  return hook(ctx, "out",
              m_output(context.reshape({batch * length, hidden})).view({batch, length, hidden}));
}

torch::Tensor SelfAttentionImpl::outputGate(const torch::Tensor& x, AttentionContext& ctx) {
  const auto batch = x.size(0);
  const auto length = x.size(1);
  // Gated attention (Qiu et al. 2025, G1): sigmoid(X W_theta + b) of the block's input X,
  // laid out as the heads' context [B, heads, T, d]: [B, heads, T, 1] for one gate per head.
  auto logits = m_gate(x.reshape({batch * length, x.size(2)}));
  if (m_outputGate == OutputGate::Head) {
    auto gate =
        hook(ctx, "gate", torch::sigmoid(logits.view({batch, length, m_heads}).transpose(1, 2)));
    ctx.gateMeans.push_back(gate.detach().mean(torch::IntArrayRef{0, 2}));
    return gate.unsqueeze(-1);
  }
  auto gate =
      hook(ctx, "gate",
           torch::sigmoid(logits.view({batch, length, m_heads, m_headSize}).transpose(1, 2)));
  ctx.gateMeans.push_back(gate.detach().mean(torch::IntArrayRef{0, 2, 3}));
  return gate;
}

torch::Tensor SelfAttentionImpl::hook(AttentionContext& ctx, const char* name,
                                      torch::Tensor value) const {
  if (ctx.hooks == nullptr) return value;
  return ctx.hooks->apply(m_hookPrefix + name, std::move(value));
}

bool SelfAttentionImpl::fusedAllowedBy(const AttentionContext& ctx, const torch::Tensor& x) const {
  if (!m_fusable || ctx.keepProbabilitiesForGuidance) return false;
  // The hook points inside the attention product exist only in the explicit path.
  if (ctx.hooks != nullptr &&
      ctx.hooks->wantsAny(m_hookPrefix, {"scores", "probs", "pattern", "mixing"}))
    return false;
  // LibTorch's fused CPU kernel gives no gradient for its mask (it counts as a constant):
  // a bias that must be trained (position interactions, ASA's mask on its adversarial pass)
  // goes through the explicit product, whose gradient reaches it. Decided before the bias
  // is computed, so it is computed once.
  if (torch::GradMode::is_enabled() &&
      (m_position || (!ctx.adversarialBiases.empty() &&
                      ctx.adversarialBiases[static_cast<size_t>(m_layerIndex)].requires_grad())))
    return false;
  // The fused kernel draws its dropout from LibTorch's global generator. On the CPU a run
  // draws from its own generator (core/runtime/engine_random.h) so that results do not
  // depend on other threads: a CPU step with attention dropout stays explicit.
  const bool dropsOut = is_training() && m_attentionDropoutP > 0.0;
  return !(dropsOut && x.is_cpu());
}

torch::Tensor SelfAttentionImpl::fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                                                const torch::Tensor& v, AttentionContext& ctx) {
  const auto mask = maskBias(ctx);
  auto bias = mask;
  if (m_position) {
    const auto position = m_position->forward(q.size(2)).unsqueeze(0);
    bias = mask.defined() ? mask + position : position;
  }
  return torch_compat::fusedAttention(q, k, v, bias, is_training() ? m_attentionDropoutP : 0.0,
                                      1.0 / std::sqrt(double(m_headSize)));
}

torch::Tensor SelfAttentionImpl::maskBias(const AttentionContext& ctx) const {
  if (!ctx.adversarialBiases.empty()) {
    const auto& adversarial = ctx.adversarialBiases[static_cast<size_t>(m_layerIndex)];
    return m_windowed && ctx.windowBias.defined() ? adversarial + ctx.windowBias : adversarial;
  }
  return m_windowed && ctx.windowBias.defined() ? ctx.windowedPaddingBias : ctx.paddingBias;
}

torch::Tensor SelfAttentionImpl::rawScores(const torch::Tensor& q, const torch::Tensor& k) {
  auto scores = torch::matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(double(q.size(-1))));
  if (m_position) scores = scores + m_position->forward(q.size(2)).unsqueeze(0);
  return scores;
}

torch::Tensor SelfAttentionImpl::explicitAttention(const torch::Tensor& q, const torch::Tensor& k,
                                                   const torch::Tensor& v, AttentionContext& ctx) {
  auto scores = rawScores(q, k);
  if (m_residual != ResidualScores::None) {
    // RealFormer: carry the unmasked running sum; the mask is added after, never carried.
    if (ctx.residualScores.defined()) scores = scores + ctx.residualScores;
    ctx.residualScores = scores;
    if (m_residual == ResidualScores::Mean) scores = scores / double(m_layerIndex + 1);
  }
  scores = hook(ctx, "scores", scores);  // after every additive term, before the mask

  const auto mask = maskBias(ctx);  // undefined for a global layer of a batch without padding
  auto probs = m_normalizer ? m_normalizer->forward(scores, mask)
                            : torch::softmax(mask.defined() ? scores + mask : scores, -1);
  probs = hook(ctx, "probs", probs);
  if (ctx.keepProbabilitiesForGuidance) ctx.guidanceProbabilities.push_back(probs);
  return mixValues(probs, v, ctx);
}

torch::Tensor SelfAttentionImpl::differentialAttention(const torch::Tensor& q,
                                                       const torch::Tensor& k,
                                                       const torch::Tensor& v,
                                                       AttentionContext& ctx) {
  // Each head's q and k in halves; scores scaled by sqrt(d/2), the halves' size (the code's
  // head_dim). "scores" is the first map's, "scores2" the second's.
  const auto half = m_headSize / 2;
  const auto s1 = hook(ctx, "scores", rawScores(q.narrow(-1, 0, half), k.narrow(-1, 0, half)));
  const auto s2 =
      hook(ctx, "scores2", rawScores(q.narrow(-1, half, half), k.narrow(-1, half, half)));
  const auto mask = maskBias(ctx);
  const auto p1 = torch::softmax(mask.defined() ? s1 + mask : s1, -1);
  const auto p2 = torch::softmax(mask.defined() ? s2 + mask : s2, -1);
  // The signed map: "probs" holds it, though its rows sum to 1 - lambda and may be negative.
  const auto lambda = m_differential->lambda().to(p1.scalar_type());
  auto weights = hook(ctx, "probs", p1 - lambda * p2);
  return m_differential->finish(mixValues(weights, v, ctx));
}

torch::Tensor SelfAttentionImpl::mixValues(torch::Tensor weights, const torch::Tensor& v,
                                           AttentionContext& ctx) {
  if (m_conv1d) weights = m_conv1d->forward(weights);
  if (m_conv2d) weights = m_conv2d->forward(weights);
  weights = hook(ctx, "pattern", weights);  // what multiplies the values
  hookMixing(weights, ctx);
  return torch::matmul(m_attentionDropout(weights), v);
}

void SelfAttentionImpl::hookValueNorms(const torch::Tensor& v, AttentionContext& ctx) const {
  const bool norms = ctx.hooks != nullptr && ctx.hooks->wantsAny(m_hookPrefix, {"value_norms"});
  const bool gram = ctx.hooks != nullptr && ctx.hooks->wantsAny(m_hookPrefix, {"value_gram"});
  if (!norms && !gram) return;
  torch::NoGradGuard noGrad;
  // f_h(x_j) = v_h,j W_O,h: the head's columns of the output projection ([out, in] weight,
  // the input columns of head h are h*d .. (h+1)*d). The output bias is added once after
  // the sum over heads, so it belongs to no head and is left out (Kobayashi et al.).
  // In the model's precision (float32: the vectors are its own products, and the model sums
  // them in float32 too); the Gram matrices are handed on in float64, where the layer norm's
  // quadratic form is accumulated. (Converting f to float64 first cost 20 ms of a layer's
  // 21 at 512 tokens, for dot products that float32 already gives to about 1e-6.)
  const auto weight = m_output->weight.detach().to(v.scalar_type());
  const auto perHead = weight.view({weight.size(0), m_heads, m_headSize});
  const auto f = torch::einsum("bhtd,ohd->bhto", {v.detach(), perHead});  // [B, heads, T, hidden]
  if (norms) hook(ctx, "value_norms", f.norm(2, -1));
  if (gram) {
    const auto byToken = f.permute({0, 2, 1, 3});  // [B, T, heads, hidden]
    hook(ctx, "value_gram", torch::matmul(byToken, byToken.transpose(-2, -1)).to(torch::kDouble));
  }
}

void SelfAttentionImpl::hookMixing(const torch::Tensor& pattern, AttentionContext& ctx) const {
  if (ctx.hooks == nullptr || !ctx.hooks->wantsAny(m_hookPrefix, {"mixing"})) return;
  auto mixing = pattern.detach();
  if (m_blurTarget == BlurTarget::Context) {
    // Blurring the context along the sequence blurs each head's rows of alpha along the
    // query axis: context'_i = sum_m k_m sum_j alpha_(i+m)j v_j.
    const auto b = mixing.size(0), h = mixing.size(1), t = mixing.size(2), s = mixing.size(3);
    const auto byQuery = mixing.permute({0, 2, 1, 3}).reshape({b, t, h * s});
    mixing = blurAlongSequence(byQuery, m_blurKernel).view({b, t, h, s}).permute({0, 2, 1, 3});
  }
  hook(ctx, "mixing", mixing.contiguous());
}

}  // namespace attnlab::core
